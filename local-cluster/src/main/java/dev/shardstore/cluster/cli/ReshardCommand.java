package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code reshard DB.COLL --key JSON [--num-initial-chunks N] [--force-redistribution]}: runs MongoDB's
 * {@code reshardCollection} through router1 of the running cluster and prints each state the coordinator reaches (polled
 * from the resharding service's {@code /actuator/resharding}); {@code reshard DB.COLL --abort} runs
 * {@code abortReshardCollection}.
 */
@Command(name = "reshard", mixinStandardHelpOptions = true,
        description = "Change a sharded collection's shard key online (reshardCollection through router1), showing the coordinator's states;"
                + " --abort stops a running one.")
final class ReshardCommand implements Callable<Integer> {
    private static final Duration POLL = Duration.ofMillis(250);

    @Mixin
    HomeOption home;

    @Parameters(paramLabel = "DB.COLL", description = "the sharded collection, e.g. geo.cities")
    String namespace;

    @Option(names = "--key", paramLabel = "JSON", description = "the new shard key, e.g. '{\"country\": 1, \"name\": 1}'")
    @Nullable String key;

    @Option(names = "--num-initial-chunks", paramLabel = "N", description = "how many chunks the new key starts with (default: one per shard)")
    @Nullable Integer numInitialChunks;

    @Option(names = "--force-redistribution", description = "reshard even onto the same key (to spread the data over other shards)")
    boolean forceRedistribution;

    @Option(names = "--abort", description = "abort the collection's running resharding (abortReshardCollection) instead")
    boolean abort;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        LocalCluster cluster = home.requireRunning();
        RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofHours(1));
        if (abort) {
            return report(out, "abortReshardCollection", router.run("admin", new BsonDocument("abortReshardCollection", new BsonString(namespace))),
                    "aborted the resharding of " + namespace);
        }
        if (key == null) {
            throw new IllegalArgumentException("--key is required (or --abort)");
        }
        BsonDocument command = new BsonDocument("reshardCollection", new BsonString(namespace)).append("key", parseKey(key))
                .append("forceRedistribution", BsonBoolean.valueOf(forceRedistribution));
        if (numInitialChunks != null) {
            command.append("numInitialChunks", new BsonInt32(numInitialChunks));
        }
        long start = System.nanoTime();
        CompletableFuture<BsonDocument> reshard = CompletableFuture.supplyAsync(() -> router.run("admin", command), Thread.ofVirtual()::start);
        HttpClient http = HttpClient.newHttpClient();
        String shown = "";
        while (!reshard.isDone()) {
            String state = state(http, cluster.url("resharding"));
            if (!state.isEmpty() && !state.equals(shown)) {
                out.printf("%6.1f s  %s%n", (System.nanoTime() - start) / 1e9, state);
                out.flush();
                shown = state;
            }
            Thread.sleep(POLL);
        }
        return report(out, "reshardCollection", reshard.join(), String.format("resharded %s to %s in %,d ms", namespace, key,
                (System.nanoTime() - start) / 1_000_000));
    }

    private static int report(PrintWriter out, String what, BsonDocument reply, String success) {
        if (!RouterClient.isOk(reply)) {
            out.println(what + " failed: " + RouterClient.describeError(reply));
            return 1;
        }
        out.println(success);
        return 0;
    }

    /** The state of the collection's operation in {@code /actuator/resharding}; empty when it has none or no answer came. */
    private String state(HttpClient http, String reshardingUrl) throws InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(reshardingUrl + "/actuator/resharding"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            for (BsonValue op : ExtendedJson.parse(response.body()).getArray("operations")) {
                if (op.asDocument().getString("ns").getValue().equals(namespace)) {
                    return op.asDocument().getString("state").getValue();
                }
            }
        } catch (IOException | RuntimeException e) {
            // the service not answering now shows nothing this round
        }
        return "";
    }

    private static BsonDocument parseKey(String json) {
        try {
            return ExtendedJson.parse(json);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--key is not a JSON document: " + e.getMessage(), e);
        }
    }
}
