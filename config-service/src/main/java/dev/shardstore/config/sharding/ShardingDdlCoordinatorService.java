package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.DdlCoordinatorDocument;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.support.coordinator.KeyedOperations;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/**
 * The one framework of the config service's DDL coordinators (MongoDB's {@code ShardingDDLCoordinatorService};
 * mongo/src/mongo/db/s/README.md "DDL operations", "Serializing conflicting operations"), used by dropCollection and movePrimary:
 * <ul>
 *   <li>{@link #run} (service-support's {@link KeyedOperations}): at most one operation per key (a namespace, or a database) runs in this process; a second request
 *       for the same operation with the same arguments joins the running one and gets its result, any other is
 *       ConflictingOperationInProgress (117). dropDatabase also runs under its database's key, so it cannot overlap a
 *       movePrimary;</li>
 *   <li>{@link #advance}: records the phase a coordinator reached in its document, then passes that boundary's fail
 *       point, so a crash at the fail point resumes from the recorded phase;</li>
 *   <li>{@link #resumeUnfinished}: once the service is up, then every {@code shardstore.sharding.ddl-retry-interval}
 *       (after a failure, e.g. a shard that was down), every document whose coordinator is not running is resumed by
 *       its kind ({@link ResumableDdlCoordinator}), each on its own virtual thread, so the scheduler (which also
 *       relays the outbox) never waits for a shard.</li>
 * </ul>
 * The persisted documents ({@link ShardingDdlCoordinators}) serialize the operations across restarts; this class
 * serializes those running now.
 */
@Service
public class ShardingDdlCoordinatorService {
    private static final Logger log = LoggerFactory.getLogger(ShardingDdlCoordinatorService.class);

    private final ShardingDdlCoordinators documents;
    private final ObjectProvider<ResumableDdlCoordinator> kinds;
    private final FailPoints failPoints;
    private final KeyedOperations running = new KeyedOperations();

    /** @param kinds the coordinator kinds, looked up when resuming (they depend on this service themselves) */
    public ShardingDdlCoordinatorService(ShardingDdlCoordinators documents, ObjectProvider<ResumableDdlCoordinator> kinds,
            FailPoints failPoints) {
        this.documents = documents;
        this.kinds = kinds;
        this.failPoints = failPoints;
    }

    /**
     * Runs {@code body} as the operation of {@code key} in this process, or joins the same operation already running
     * ({@link KeyedOperations#run}: an equal {@code request} joins, another is ConflictingOperationInProgress, 117).
     */
    public <T> T run(String key, String operation, Object request, Supplier<T> body) {
        return running.run(key, operation, request, body);
    }

    /** Records that a coordinator reached {@code reached} (its phase and state), then passes {@code failPoint}. */
    public <D extends DdlCoordinatorDocument> D advance(D reached, String failPoint) {
        documents.save(reached);
        failPoints.hit(failPoint);
        return reached;
    }

    /** Resumes every unfinished coordinator that is not running (see the class comment). */
    @EventListener(ApplicationReadyEvent.class)
    @Scheduled(initialDelayString = "${shardstore.sharding.ddl-retry-interval:5s}", fixedDelayString = "${shardstore.sharding.ddl-retry-interval:5s}")
    public void resumeUnfinished() {
        for (ShardingDdlCoordinators.Unfinished unfinished : documents.listUnfinished()) {
            if (running.isRunning(unfinished.key())) {
                continue;
            }
            ResumableDdlCoordinator kind = kinds.orderedStream().filter(k -> k.operation().equals(unfinished.operation())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no coordinator resumes " + unfinished.operation()));
            Thread.ofVirtual().name("resume-" + unfinished.operation() + "-" + unfinished.key()).start(() -> {
                try {
                    log.info("resuming the {} of {}", unfinished.operation(), unfinished.key());
                    kind.resume(unfinished.key());
                } catch (CommandException e) {
                    log.warn("the {} of {} stopped again ({}); it will be resumed", unfinished.operation(), unfinished.key(), e.getMessage());
                }
            });
        }
    }
}
