package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** What every end-to-end class needs besides its cluster: plain GETs (Actuator) and waiting for a condition. */
final class ItSupport {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ItSupport() {}

    /**
     * Starts a cluster of {@code shards} shards and one router with every port shifted by {@code portOffset} and a balancer
     * round every second, in a fresh temporary home named after {@code name}; its lines are printed with {@code [cluster]}.
     *
     * @param jvmOptions further options for every service, e.g. {@code -Dshardstore.balancer.snapshot-history-window=15s}
     */
    static LocalCluster startWithFastBalancer(String name, int shards, int portOffset, String... jvmOptions) throws IOException {
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add("-Dshardstore.balancer.round-interval=1s");
        jvm.addAll(List.of(jvmOptions));
        return LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(Files.createTempDirectory("shardstore-" + name + "-it-"))
                .withShards(shards).withRouters(1).withPortOffset(portOffset).withServiceJvmOptions(jvm), line -> System.out.println("[cluster] " + line));
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
