package dev.shardstore.shard.migration;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSection;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Finishes the migrations this shard donated and did not finish (MongoDB's migration recovery on step-up;
 * mongo/src/mongo/db/s/README.md "Orphaned range deletion"): when the shard starts, and every {@code recovery-retry-interval} for those whose recipient
 * or config service did not answer. For each coordinator document not owned by a migration running in this process:
 * an undecided one is decided from the catalog after a fence ({@link MigrationCoordinator#decideFromCatalog}), then the
 * decision is applied ({@link MigrationCoordinator#finish}: the critical section the donor may still hold, the range
 * deletion tasks of both shards, the document). New migrations are refused until no document is left
 * ({@link ActiveMigrationsRegistry}). A critical section held for a migration whose document is gone (its outcome was
 * applied just before a crash) is released.
 */
@Component
public class MigrationRecovery {
    private static final Logger log = LoggerFactory.getLogger(MigrationRecovery.class);

    private final MigrationCoordinatorStore coordinators;
    private final MigrationCoordinator coordinator;
    private final ActiveMigrationsRegistry registry;
    private final CollectionShardingRuntime runtime;
    private final MigrationPeers peers;
    private final ShardMetrics metrics;
    private final Set<UUID> recovering = ConcurrentHashMap.newKeySet();

    public MigrationRecovery(MigrationCoordinatorStore coordinators, MigrationCoordinator coordinator, ActiveMigrationsRegistry registry,
            CollectionShardingRuntime runtime, MigrationPeers peers, ShardMetrics metrics) {
        this.coordinators = coordinators;
        this.coordinator = coordinator;
        this.registry = registry;
        this.runtime = runtime;
        this.peers = peers;
        this.metrics = metrics;
    }

    /** At startup: releases orphaned migration sections, then resumes every unfinished migration. */
    @EventListener(ApplicationReadyEvent.class)
    public void onStartup() {
        Set<String> unfinished = ConcurrentHashMap.newKeySet();
        coordinators.list().forEach(doc -> unfinished.add(doc.id().toString()));
        for (CriticalSection section : runtime.criticalSections()) {
            if (MigrationCoordinatorDocument.isMigrationReason(section.reason())
                    && !unfinished.contains(section.reason().getString("migrationId").getValue())) {
                runtime.exitCriticalSection(Namespace.parse(section.namespace()), section.reason());
                log.info("released the critical section of {} left by finished migration {}", section.namespace(),
                        section.reason().getString("migrationId", new BsonString("?")).getValue());
            }
        }
        resumeUnfinished();
    }

    /** Starts the recovery of every unfinished migration that is neither running nor being recovered, each on its own thread. */
    @Scheduled(initialDelayString = "${shardstore.shard.migration.recovery-retry-interval:2s}",
            fixedDelayString = "${shardstore.shard.migration.recovery-retry-interval:2s}")
    public void resumeUnfinished() {
        for (MigrationCoordinatorDocument doc : coordinators.list()) {
            if (registry.isRunning(doc.id()) || !recovering.add(doc.id())) {
                continue;
            }
            Thread.ofVirtual().name("recover-migration-" + doc.id()).start(() -> {
                try {
                    recover(doc);
                } catch (RuntimeException e) {
                    log.warn("recovery of migration {} of {} stopped; it is retried: {}", doc.id(), doc.namespace(), e.getMessage());
                } finally {
                    recovering.remove(doc.id());
                }
            });
        }
    }

    private void recover(MigrationCoordinatorDocument doc) {
        log.info("recovering migration {} of {} {} ({} -> {}, decision {})", doc.id(), doc.namespace(), doc.range(), doc.donor(),
                doc.recipient(), doc.decision() == null ? "none yet" : doc.decision().value());
        boolean decidedHere = doc.decision() == null;
        MigrationCoordinatorDocument decided = decidedHere ? coordinators.decide(doc.id(), coordinator.decideFromCatalog(doc)) : doc;
        coordinator.finish(decided, null);
        MigrationDecision decision = Objects.requireNonNull(decided.decision(), "decided here, or before when it was recorded");
        if (decidedHere) {
            // a decision recorded before was announced by the migration that recorded it
            boolean committed = decision == MigrationDecision.COMMITTED;
            metrics.migrationFinished("donor", decision.value());
            peers.logChange(committed ? "moveChunk.commit" : "moveChunk.error", doc.namespace(), MigrationCoordinator.details(doc)
                    .append("note", new BsonString("decided by recovery after a restart")));
        }
        log.info("migration {} of {} finished by recovery: {}", doc.id(), doc.namespace(), decision.value());
    }
}
