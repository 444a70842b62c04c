package dev.shardstore.cluster.load;

import java.time.Duration;
import java.util.List;

/**
 * The outcome of a load.
 *
 * @param documents    documents read from the file and sent
 * @param inserted     documents the router reported inserted ({@code n})
 * @param failed       documents not inserted ({@code writeErrors}, or whole batches refused)
 * @param errorSamples the first few error messages, each naming the document's position in the file
 * @param elapsed      wall time from opening the file to the last reply
 */
public record LoadReport(long documents, long inserted, long failed, List<String> errorSamples, Duration elapsed) {

    public LoadReport {
        errorSamples = List.copyOf(errorSamples);
    }

    /** Inserted documents per second. */
    public double documentsPerSecond() {
        double seconds = Math.max(elapsed.toNanos(), 1) / 1e9;
        return inserted / seconds;
    }
}
