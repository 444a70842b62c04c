package dev.shardstore.cluster.load;

import java.io.ByteArrayOutputStream;
import java.util.Optional;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * One {@code insert} command with up to a batch size of documents, serialised as JSON:
 * {@code {"insert": "coll", "documents": [...], "ordered": false}}.
 *
 * @param body      the command's JSON bytes (UTF-8)
 * @param documents how many documents it carries, at least 1
 */
record InsertBatch(byte[] body, int documents) {
    private static final JsonFactory FACTORY = new JsonFactory();

    /**
     * Reads up to {@code batchSize} documents from {@code reader} into a command.
     *
     * @return empty when the reader had no document left
     */
    static Optional<InsertBatch> next(DocumentReader reader, String collection, int batchSize) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);
        int count = 0;
        try (JsonGenerator out = FACTORY.createGenerator(ObjectWriteContext.empty(), bytes)) {
            out.writeStartObject();
            out.writeStringProperty("insert", collection);
            out.writeName("documents");
            out.writeStartArray();
            while (count < batchSize && reader.writeNext(out)) {
                count++;
            }
            out.writeEndArray();
            out.writeBooleanProperty("ordered", false);
            out.writeEndObject();
        }
        return count == 0 ? Optional.empty() : Optional.of(new InsertBatch(bytes.toByteArray(), count));
    }
}
