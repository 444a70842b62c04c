package dev.shardstore.cluster.load;

import tools.jackson.core.JsonGenerator;

/**
 * Reads documents one at a time from an input and writes each as a JSON object, so a batch can be
 * built without holding the file in memory. Not thread-safe.
 */
public interface DocumentReader {

    /**
     * Writes the next document to {@code out}.
     *
     * @return false at the end of the input (nothing written)
     * @throws LoadException when the input is malformed; the message names the file and position
     */
    boolean writeNext(JsonGenerator out);

    /** Opens the right reader for {@code file}'s format. */
    static DocumentReader of(InputFile file) {
        return switch (file.format()) {
            case JSON -> new JsonDocumentReader(file);
            case CSV -> new CsvDocumentReader(file);
        };
    }
}
