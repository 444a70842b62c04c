package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.Component;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.Role;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.transport.http.CommandClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code move DB.COLL --find JSON | --bounds JSON --to SHARD}: runs MongoDB's {@code moveChunk} through router1 of the
 * running cluster and shows the migration's progress, polled from the shards' {@code currentOp} (the donor's running
 * migration: phase, documents and bytes cloned, changes transferred), as {@link MigrationProgressView} draws it.
 */
@Command(name = "move", mixinStandardHelpOptions = true,
        description = "Move a chunk of a sharded collection to another shard (moveChunk through router1), showing the migration's progress.")
final class MoveCommand implements Callable<Integer> {
    private static final Duration POLL = Duration.ofMillis(250);

    @Mixin
    HomeOption home;

    @Parameters(paramLabel = "DB.COLL", description = "the sharded collection, e.g. geo.cities")
    String namespace;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Option(names = "--to", required = true, paramLabel = "SHARD", description = "the recipient shard, e.g. shard2")
    String to;

    @Option(names = "--wait-for-delete", description = "answer only once the donor's orphans are deleted (_waitForDelete)")
    boolean waitForDelete;

    @Spec
    CommandSpec spec;

    /** Which chunk: exactly one of {@code --find} and {@code --bounds}. */
    static final class Target {
        @Option(names = "--find", paramLabel = "JSON", description = "shard key equality of a document in the chunk, e.g. '{\"country\": \"FR\"}'")
        @Nullable String find;

        @Option(names = "--bounds", paramLabel = "JSON", description = "the chunk's exact bounds, e.g. '[{\"x\": 0}, {\"x\": 100}]'")
        @Nullable String bounds;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        LocalCluster cluster = home.requireRunning();
        BsonDocument command = moveChunk();
        RouterClient router = cluster.routerClient(Duration.ofHours(1));
        CommandClient shards = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(10), null, cluster.clusterKey().orElse(null));
        CompletableFuture<BsonDocument> move = CompletableFuture.supplyAsync(() -> router.run("admin", command), Thread.ofVirtual()::start);
        try (MigrationProgressView view = new MigrationProgressView(namespace)) {
            while (!move.isDone()) {
                donorOperation(cluster, shards).ifPresent(view::update);
                Thread.sleep(POLL);
            }
        }
        BsonDocument reply = move.join();
        if (!RouterClient.isOk(reply)) {
            out.println("moveChunk failed: " + reply.getString("errmsg", new BsonString(reply.toJson())).getValue());
            return 1;
        }
        out.printf("moved the chunk of %s %s to %s in %,d ms%n", namespace, target.find != null ? target.find : target.bounds, to,
                reply.getNumber("millis").longValue());
        return 0;
    }

    private BsonDocument moveChunk() {
        BsonDocument command = new BsonDocument("moveChunk", new BsonString(namespace));
        if (target.find != null) {
            command.append("find", parse(target.find, "--find"));
        } else {
            BsonValue bounds = parse("{\"b\": " + target.bounds + "}", "--bounds").get("b");
            if (bounds == null || !bounds.isArray()) {
                throw new IllegalArgumentException("--bounds must be a JSON array [min, max], was " + target.bounds);
            }
            command.append("bounds", bounds);
        }
        return command.append("to", new BsonString(to)).append("_waitForDelete", BsonBoolean.valueOf(waitForDelete));
    }

    private static BsonDocument parse(String json, String option) {
        try {
            return ExtendedJson.parse(json);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(option + " is not a JSON document: " + e.getMessage(), e);
        }
    }

    /** The donor's running migration of the namespace, from the shards' {@code currentOp}; empty between phases. */
    private Optional<BsonDocument> donorOperation(LocalCluster cluster, CommandClient shards) {
        for (Component shard : cluster.topology().withRole(Role.SHARD)) {
            try {
                BsonDocument reply = shards.runChecked(shard.name(), shard.url(), "admin", new BsonDocument("currentOp", new BsonInt32(1)));
                for (BsonValue op : reply.getArray("inprog")) {
                    BsonDocument doc = op.asDocument();
                    if (doc.getString("desc").getValue().equals("MoveChunk") && doc.getString("ns").getValue().equals(namespace)) {
                        return Optional.of(doc);
                    }
                }
            } catch (CommandException e) {
                // a shard that does not answer now shows nothing this round
            }
        }
        return Optional.empty();
    }
}
