package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.router.RouterException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A client writing through a router while a migration runs, keeping a model of what was acknowledged: it inserts
 * documents {@code {_id, x, w, v}} ({@code x}, the shard key, spread over {@code [0, xBound)}, so inside and outside the
 * moving range), updates {@code v} of live ones and deletes some, each statement on one of its own documents (so their
 * order is its order). A statement the router acknowledged ({@code ok: 1}, {@code n: 1}, no write error) updates the
 * model; any other outcome (an error, a dead process, a timeout) makes its document uncertain: it may or may not have
 * happened. {@link #verify} then checks through the router that every acknowledged document is readable exactly once
 * with its last acknowledged value, no deleted one is left, and no document is there twice.
 */
final class AcknowledgedWriter implements AutoCloseable {
    private final RouterClient router;
    private final String db;
    private final String collection;
    private final String tag;
    private final int xBound;
    private final Random random;
    private final Map<Integer, BsonDocument> acknowledged = new HashMap<>();
    private final Set<Integer> uncertain = new HashSet<>();
    private final List<Integer> live = new ArrayList<>();
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;
    private int nextId;

    /**
     * Starts writing at once, on its own thread.
     *
     * @param tag    marks this writer's documents ({@code w}); its ids start at {@code idBase}
     * @param xBound shard key values are drawn from {@code [0, xBound)}
     */
    AcknowledgedWriter(RouterClient router, String db, String collection, String tag, int idBase, int xBound, long seed) {
        this.router = router;
        this.db = db;
        this.collection = collection;
        this.tag = tag;
        this.xBound = xBound;
        this.random = new Random(seed);
        this.nextId = idBase;
        this.thread = Thread.ofPlatform().name("writer-" + tag).start(this::loop);
    }

    /** Statements sent so far. */
    long statements() {
        return statements.get();
    }

    /** Statements that were not acknowledged. */
    long failures() {
        return failures.get();
    }

    private void loop() {
        while (!stopped) {
            int choice = random.nextInt(5);
            if (choice < 2 || live.size() < 5) {
                int id = nextId++;
                BsonDocument doc = new BsonDocument("_id", new BsonInt32(id)).append("x", new BsonInt32(random.nextInt(xBound)))
                        .append("w", new BsonString(tag)).append("v", new BsonInt32(0));
                if (send(id, new BsonDocument("insert", new BsonString(collection)).append("documents", new BsonArray(List.of(doc))))) {
                    acknowledged.put(id, doc);
                    live.add(id);
                }
            } else {
                int id = live.get(random.nextInt(live.size()));
                BsonDocument current = acknowledged.get(id);
                BsonDocument query = new BsonDocument("_id", new BsonInt32(id)).append("x", current.get("x"));
                if (choice < 4) {
                    // an int: the router's JSON front end reads a small long back as an int
                    int v = (int) statements.get();
                    if (send(id, new BsonDocument("update", new BsonString(collection)).append("updates", new BsonArray(List.of(
                            new BsonDocument("q", query).append("u", new BsonDocument("$set", new BsonDocument("v", new BsonInt32(v))))))))) {
                        BsonDocument updated = current.clone();
                        updated.put("v", new BsonInt32(v));
                        acknowledged.put(id, updated);
                    }
                } else if (send(id, new BsonDocument("delete", new BsonString(collection)).append("deletes", new BsonArray(List.of(
                        new BsonDocument("q", query).append("limit", new BsonInt32(1))))))) {
                    acknowledged.put(id, null);
                    live.remove(Integer.valueOf(id));
                }
            }
        }
    }

    /** Sends one statement about document {@code id}; true when it was acknowledged, else the document becomes uncertain. */
    private boolean send(int id, BsonDocument command) {
        statements.incrementAndGet();
        try {
            BsonDocument reply = router.run(db, command);
            if (RouterClient.isOk(reply) && !reply.containsKey("writeErrors") && reply.getNumber("n").intValue() == 1) {
                return true;
            }
        } catch (RouterException e) {
            // not acknowledged: unknown whether it happened
        }
        failures.incrementAndGet();
        uncertain.add(id);
        live.remove(Integer.valueOf(id));
        return false;
    }

    /** Stops writing and waits for the statement in flight. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join();
    }

    /**
     * Checks through {@code reader} that every acknowledged document is there exactly once with its last acknowledged
     * value, that acknowledged deletes are gone, and that no document of this writer is there twice.
     *
     * @return how many documents of this writer are there
     */
    int verify(RouterClient reader) {
        Map<Integer, Integer> seen = new HashMap<>();
        Map<Integer, BsonDocument> found = new HashMap<>();
        for (BsonDocument doc : findAll(reader, db, collection, new BsonDocument("w", new BsonString(tag)))) {
            int id = doc.getInt32("_id").getValue();
            seen.merge(id, 1, Integer::sum);
            found.put(id, doc);
        }
        assertThat(seen.entrySet()).as("%s: no document twice", tag).allSatisfy(e -> assertThat(e.getValue()).as("_id %d", e.getKey()).isOne());
        for (Map.Entry<Integer, BsonDocument> e : acknowledged.entrySet()) {
            if (uncertain.contains(e.getKey())) {
                continue;
            }
            if (e.getValue() == null) {
                assertThat(found).as("%s: acknowledged delete of %d", tag, e.getKey()).doesNotContainKey(e.getKey());
            } else {
                assertThat(found.get(e.getKey())).as("%s: acknowledged document %d", tag, e.getKey()).isEqualTo(e.getValue());
            }
        }
        return found.size();
    }

    /** Every document of {@code db.collection} matching {@code filter}, read through {@code router} to the cursor's end. */
    static List<BsonDocument> findAll(RouterClient router, String db, String collection, BsonDocument filter) {
        List<BsonDocument> all = new ArrayList<>();
        BsonDocument cursor = RouterClient.requireOk("find", router.run(db, new BsonDocument("find", new BsonString(collection))
                .append("filter", filter).append("batchSize", new BsonInt32(5000)))).getDocument("cursor");
        BsonArray batch = cursor.getArray("firstBatch");
        while (true) {
            batch.forEach(v -> all.add(v.asDocument()));
            long id = cursor.getNumber("id").longValue();
            if (id == 0) {
                return all;
            }
            cursor = RouterClient.requireOk("getMore", router.run(db, new BsonDocument("getMore", new BsonInt64(id))
                    .append("collection", new BsonString(collection)).append("batchSize", new BsonInt32(5000)))).getDocument("cursor");
            batch = cursor.getArray("nextBatch");
        }
    }

    /** The ids of {@code documents}. */
    static List<BsonValue> ids(List<BsonDocument> documents) {
        return documents.stream().map(d -> d.get("_id")).toList();
    }
}
