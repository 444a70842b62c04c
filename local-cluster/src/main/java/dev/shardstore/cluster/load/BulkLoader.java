package dev.shardstore.cluster.load;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Loads a JSON, JSON Lines or CSV file (optionally gzipped) into a collection through a router, as
 * unordered {@code insert} batches with a few of them in flight at once. The file is streamed: memory
 * use is bounded by batch size × batches in flight, whatever the file's size.
 *
 * <p>Per-document failures ({@code writeErrors}) and refused batches are counted and sampled in the
 * {@link LoadReport}; the load goes on. A transport failure (router unreachable or timing out) or
 * malformed input stops it with a {@link LoadException}.
 */
public final class BulkLoader {
    private static final int MAX_ERROR_SAMPLES = 10;

    private final RouterClient router;
    private final int batchSize;
    private final int inFlight;

    /**
     * @param batchSize documents per insert command, at least 1
     * @param inFlight  insert commands awaiting a reply at once, at least 1
     */
    public BulkLoader(RouterClient router, int batchSize, int inFlight) {
        if (batchSize < 1 || inFlight < 1) {
            throw new IllegalArgumentException("batch size and batches in flight must be at least 1, were " + batchSize + " and " + inFlight);
        }
        this.router = router;
        this.batchSize = batchSize;
        this.inFlight = inFlight;
    }

    /**
     * Loads {@code path} into {@code target}.
     *
     * @throws IllegalArgumentException when the file is missing or of an unknown format
     * @throws LoadException            when the input is malformed or the router fails; documents sent
     *                                  before that may have been inserted
     */
    public LoadReport load(Path path, Namespace target, LoadListener listener) {
        long begin = System.nanoTime();
        Tally tally = new Tally();
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<@Nullable Throwable> fatal = new AtomicReference<>();
        long sent = 0;
        try (InputFile file = InputFile.open(path)) {
            listener.started(file);
            DocumentReader reader = DocumentReader.of(file);
            while (fatal.get() == null) {
                var next = InsertBatch.next(reader, target.collection(), batchSize);
                if (next.isEmpty()) {
                    break;
                }
                InsertBatch batch = next.get();
                long firstDocument = sent + 1;
                sent += batch.documents();
                permits.acquireUninterruptibly();
                router.runAsync(target.db(), "insert", batch.body()).whenComplete((reply, failure) -> {
                    try {
                        if (failure != null) {
                            fatal.compareAndSet(null, failure.getCause() != null ? failure.getCause() : failure);
                        } else {
                            tally.add(firstDocument, batch.documents(), reply);
                        }
                    } finally {
                        permits.release();
                    }
                });
                listener.progress(file.bytesRead(), sent);
            }
        } finally {
            permits.acquireUninterruptibly(inFlight);
            listener.finished();
        }
        if (fatal.get() != null) {
            throw new LoadException("load into " + target + " stopped after sending " + sent + " documents ("
                    + tally.inserted() + " confirmed inserted): " + fatal.get().getMessage(), fatal.get());
        }
        return tally.report(sent, Duration.ofNanos(System.nanoTime() - begin));
    }

    /** Counts replies; updated from the HTTP client's threads. */
    private static final class Tally {
        private long inserted;
        private long failed;
        private final List<String> samples = new ArrayList<>();

        synchronized void add(long firstDocument, int documents, BsonDocument reply) {
            if (!RouterClient.isOk(reply)) {
                failed += documents;
                sample("documents " + firstDocument + "-" + (firstDocument + documents - 1) + " refused: " + RouterClient.describeError(reply));
                return;
            }
            inserted += reply.isNumber("n") ? reply.getNumber("n").longValue() : 0;
            for (BsonValue error : reply.getArray("writeErrors", new BsonArray())) {
                failed++;
                BsonDocument e = error.asDocument();
                long index = e.isNumber("index") ? e.getNumber("index").longValue() : -1;
                sample("document " + (index >= 0 ? String.valueOf(firstDocument + index) : "?") + ": " + RouterClient.describeError(e));
            }
        }

        private void sample(String message) {
            if (samples.size() < MAX_ERROR_SAMPLES) {
                samples.add(message);
            }
        }

        synchronized long inserted() {
            return inserted;
        }

        synchronized LoadReport report(long documents, Duration elapsed) {
            return new LoadReport(documents, inserted, failed, samples, elapsed);
        }
    }
}
