package dev.shardstore.balancer.command;

import dev.shardstore.balancer.BalancerProperties;
import dev.shardstore.balancer.cluster.ClusterStatistics;
import dev.shardstore.balancer.cluster.PeerCommands;
import dev.shardstore.balancer.policy.BalancerPolicy;
import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.balancer.policy.CollectionState;
import dev.shardstore.balancer.policy.MigrationReason;
import dev.shardstore.balancer.round.Balancer;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.Optional;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * MongoDB's balancer commands, which routers forward here (mongos forwards them to the config server, whose balancer
 * thread this service is). The mode is persisted in {@code config.settings} on the config service, so it survives a
 * restart of this service. All on {@code admin}.
 */
@Configuration
public class BalancerCommands {
    private static final String CONFIG = "config";

    /** {@code {balancerStart: 1}} → {@code {ok: 1}}: sets the balancer {@code mode} to {@code full}. */
    @Bean
    CommandHandler balancerStart(PeerCommands client, ServiceSupportProperties support) {
        return CommandHandler.of("balancerStart", (db, cmd) -> {
            setMode(client, support, BalancerSettings.Mode.FULL);
            return Replies.ok();
        });
    }

    /**
     * {@code {balancerStop: 1, maxTimeMS?}} → {@code {ok: 1}}: sets the mode to {@code off}, then waits for the round in
     * progress to end (as MongoDB's); ExceededTimeLimit (262) when it did not end within {@code maxTimeMS} (default 60 s;
     * the mode stays off).
     */
    @Bean
    CommandHandler balancerStop(PeerCommands client, ServiceSupportProperties support, Balancer balancer) {
        return CommandHandler.of("balancerStop", (db, cmd) -> {
            long maxTimeMs = new CommandArgs(cmd).optionalNonNegative("maxTimeMS", 60_000);
            setMode(client, support, BalancerSettings.Mode.OFF);
            try {
                if (!balancer.awaitRoundEnd(Duration.ofMillis(maxTimeMs == 0 ? 60_000 : maxTimeMs))) {
                    throw new CommandException(ErrorCode.ExceededTimeLimit, "the balancer round in progress did not end within 'maxTimeMS'");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommandException(ErrorCode.ShutdownInProgress, "interrupted while waiting for the balancer round to end");
            }
            return Replies.ok();
        });
    }

    /** {@code {balancerStatus: 1}} → {@code {mode, inBalancerRound, numBalancerRounds, ok: 1}} (MongoDB's shape). */
    @Bean
    CommandHandler balancerStatus(ClusterStatistics statistics, Balancer balancer) {
        return CommandHandler.of("balancerStatus", (db, cmd) -> Replies.ok(new BsonDocument("mode", new BsonString(statistics.settings().mode().value()))
                .append("inBalancerRound", BsonBoolean.valueOf(balancer.inRound()))
                .append("numBalancerRounds", new BsonInt64(balancer.numRounds()))));
    }

    /**
     * {@code {balancerCollectionStatus: "db.coll"}} → {@code {chunkSize, balancerCompliant, firstComplianceViolation?, ok: 1}}
     * (MongoDB's shape): the collection's maximum chunk size in MiB (its {@code configureCollectionBalancing chunkSize}, else
     * the cluster's {@code chunksize}) and whether the balancer would leave the collection as it is; the violation is
     * {@code draining}, {@code zoneViolation} or {@code chunksImbalance} ({@link BalancerPolicy#firstComplianceViolation};
     * {@code defragmentingChunks} never appears: this balancer does not defragment). NamespaceNotSharded (118) when it is not
     * sharded; InvalidNamespace when the name is not {@code db.coll}.
     */
    @Bean
    CommandHandler balancerCollectionStatus(ClusterStatistics statistics) {
        return CommandHandler.of("balancerCollectionStatus", (db, cmd) -> {
            String ns = Namespace.parse(new CommandArgs(cmd).requiredString("balancerCollectionStatus")).full();
            BalancerSettings settings = statistics.settings();
            CollectionState collection = statistics.collection(ns, settings)
                    .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotSharded, "Collection " + ns + " is not sharded"));
            Optional<MigrationReason> violation = new BalancerPolicy().firstComplianceViolation(collection, statistics.shards(), settings);
            BsonDocument reply = new BsonDocument("chunkSize", new org.bson.BsonDouble(collection.maxChunkSizeBytes() / (1024.0 * 1024)))
                    .append("balancerCompliant", BsonBoolean.valueOf(violation.isEmpty()));
            violation.ifPresent(v -> reply.append("firstComplianceViolation", new BsonString(v.value())));
            return Replies.ok(reply);
        });
    }

    /**
     * {@code {balancerPlan: 1}} → {@code {decisions: [{decider, verdict: "yes" | "no" | "throttle", ns, reason, action?}],
     * ok: 1}}: the decisions the next round would make now, without acting on them (this project's dry run).
     */
    @Bean
    CommandHandler balancerPlan(Balancer balancer) {
        return CommandHandler.of("balancerPlan", (db, cmd) -> Replies.ok(new BsonDocument("decisions", balancer.plan().toBson())));
    }

    private static void setMode(PeerCommands client, ServiceSupportProperties support, BalancerSettings.Mode mode) {
        client.run(CONFIG, support.configUrl(), "admin", new BsonDocument("_configsvrSetSettings", new BsonString("balancer"))
                .append("set", new BsonDocument("mode", new BsonString(mode.value())).append("stopped", BsonBoolean.valueOf(mode == BalancerSettings.Mode.OFF))));
    }
}
