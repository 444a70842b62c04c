package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.DdlCoordinatorDocument;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
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
 *   <li>{@link #run}: at most one operation per key (a namespace, or a database) runs in this process; a second request
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
    private final ConcurrentMap<String, Running> running = new ConcurrentHashMap<>();

    /** An operation running in this process: what it is, with which arguments, and its outcome. */
    private record Running(String operation, Object request, CompletableFuture<Object> outcome) {}

    /** @param kinds the coordinator kinds, looked up when resuming (they depend on this service themselves) */
    public ShardingDdlCoordinatorService(ShardingDdlCoordinators documents, ObjectProvider<ResumableDdlCoordinator> kinds,
            FailPoints failPoints) {
        this.documents = documents;
        this.kinds = kinds;
        this.failPoints = failPoints;
    }

    /**
     * Runs {@code body} as the operation of {@code key} in this process, or joins the same operation already running.
     *
     * @param request the operation's arguments; an equal request joins, another is refused
     * @return what {@code body} returned (to a joiner too)
     * @throws CommandException ConflictingOperationInProgress (117) when another operation, or the same one with other
     *                          arguments, runs on {@code key}; what {@code body} threw (to a joiner too)
     */
    @SuppressWarnings("unchecked")
    public <T> T run(String key, String operation, Object request, Supplier<T> body) {
        Running mine = new Running(operation, request, new CompletableFuture<>());
        Running other = running.putIfAbsent(key, mine);
        if (other != null) {
            if (!other.operation().equals(operation) || !other.request().equals(request)) {
                throw new CommandException(ErrorCode.ConflictingOperationInProgress, operation + " of " + key + " (" + request
                        + ") is refused while " + other.operation() + " of " + key + " (" + other.request() + ") is running");
            }
            return (T) join(other.outcome());
        }
        try {
            T result = body.get();
            mine.outcome().complete(result);
            return result;
        } catch (RuntimeException e) {
            mine.outcome().completeExceptionally(e);
            throw e;
        } finally {
            running.remove(key, mine);
        }
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
            if (running.containsKey(unfinished.key())) {
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

    private static Object join(CompletableFuture<Object> outcome) {
        try {
            return outcome.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
