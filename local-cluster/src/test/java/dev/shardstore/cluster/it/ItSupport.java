package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/** What every end-to-end class needs besides its cluster: plain GETs (Actuator), draining a cursor and waiting for a condition. */
final class ItSupport {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ItSupport() {}

    /** Every document of the cursor {@code reply} opened on {@code db.collection}, through getMores to {@code router}. */
    static List<BsonDocument> drain(RouterClient router, String db, String collection, BsonDocument reply) {
        List<BsonDocument> out = new ArrayList<>();
        BsonDocument cursor = reply.getDocument("cursor");
        cursor.getArray("firstBatch").forEach(v -> out.add(v.asDocument()));
        long id = cursor.getNumber("id").longValue();
        while (id != 0) {
            cursor = RouterClient.requireOk("getMore", router.run(db, new BsonDocument("getMore", new BsonInt64(id))
                    .append("collection", new BsonString(collection)))).getDocument("cursor");
            cursor.getArray("nextBatch").forEach(v -> out.add(v.asDocument()));
            id = cursor.getNumber("id").longValue();
        }
        return out;
    }

    /** The body of a GET of {@code url} (an Actuator endpoint, usually). */
    static String get(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code POST /actuator/catalogEvents {"state": state}} on a router: stops or resumes its catalog event consumer. */
    static void setCatalogEvents(RouterClient router, String state) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(router.url() + "/actuator/catalogEvents"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"state\": \"" + state + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 204);
    }

    /**
     * Polls {@code condition} every 200 ms until it holds; fails naming {@code what} after {@code timeout}. A condition that
     * throws counts as not yet met (a component it asks may be restarting); the last such failure is the assertion's cause.
     */
    static void waitUntil(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException notYet) {
                last = notYet;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within " + timeout, last);
            }
            Thread.sleep(200);
        }
    }
}
