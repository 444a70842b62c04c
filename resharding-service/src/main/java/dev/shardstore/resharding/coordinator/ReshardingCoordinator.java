package dev.shardstore.resharding.coordinator;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.resharding.ReshardingProperties;
import dev.shardstore.support.coordinator.KeyedOperations;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/**
 * The resharding coordinator's state machine (MongoDB's {@code ReshardingCoordinatorService}; docs/architecture.md
 * "Resharding"): initializing → preparing-to-donate → cloning → applying → blocking-writes → committing → quiesced, or
 * aborting → quiesced from any state before the decision. Each step calls the participants, then persists the next state
 * ({@link ReshardingOperationStore}) and passes the fail point {@code reshardCollection.entered.<state>}, so a crash
 * resumes at the last persisted state, whose call the participants answer idempotently.
 *
 * <ul>
 *   <li>Before the decision, an error of a participant (or abortReshardCollection) aborts the operation with that
 *       reason; the command that waits fails with ReshardCollectionAborted (341). A participant that is unreachable or
 *       restarting during the clone, the catch-up or the write block is waited for instead, for a while
 *       ({@link #throughOutages}).</li>
 *   <li>The decision is the persisted step into committing, taken only if no abort was requested first; after it, and
 *       while aborting, a failed step is retried every {@code shardstore.resharding.retry-interval} until it succeeds.</li>
 *   <li>An operation runs at most once in this process ({@link KeyedOperations}: an identical command joins it), and its
 *       document has one writer: the coordinator that claimed it last.</li>
 *   <li>At start, every unfinished document is resumed on its own virtual thread.</li>
 * </ul>
 */
@Service
public class ReshardingCoordinator {
    private static final Logger log = LoggerFactory.getLogger(ReshardingCoordinator.class);
    private static final String OPERATION = "reshardCollection";

    private final ReshardingOperationStore store;
    private final ReshardingParticipants participants;
    private final FailPoints failPoints;
    private final ReshardingProperties properties;
    private final KeyedOperations running = new KeyedOperations();

    public ReshardingCoordinator(ReshardingOperationStore store, ReshardingParticipants participants, FailPoints failPoints,
            ReshardingProperties properties) {
        this.store = store;
        this.participants = participants;
        this.failPoints = failPoints;
        this.properties = properties;
    }

    /**
     * Runs {@code request} to its end: a new operation, or the one of an equal request already running (joined) or
     * quiesced (its outcome).
     *
     * @return the committed operation's document
     * @throws CommandException ReshardCollectionAborted (341) with the abort's reason; ReshardCollectionInProgress (338)
     *                          while another request reshards the collection
     */
    public ReshardingOperation reshard(ReshardingRequest request) {
        ReshardingOperationStore.Started started = store.create(ReshardingOperation.start(UUID.randomUUID(), request));
        ReshardingOperation operation = started.operation();
        if (operation.state().finished()) {
            operation.requireCommitted();
            return operation;
        }
        if (started.created()) {
            failPoints.hit(failPoint(operation.state())); // the document is stored, in its first state
        }
        return running.run(operation.namespace().full(), OPERATION, request, () -> drive(operation.id()));
    }

    /**
     * abortReshardCollection: asks the collection's operation to abort and waits until it has ended, joining it where it
     * runs in this process, driving it to its end here otherwise (a document a crash left, not resumed yet).
     *
     * @throws CommandException NoSuchReshardCollection (339) when none runs; ReshardCollectionCommitted (340) when its
     *                          commit was decided first
     */
    public void abort(Namespace namespace) {
        ReshardingOperation asked = store.requestAbort(namespace);
        try {
            running.run(namespace.full(), OPERATION, asked.request(), () -> drive(asked.id()));
        } catch (CommandException e) {
            // ReshardCollectionAborted is the outcome asked for; whether it committed first is read below
        }
        ReshardingOperation now = store.find(asked.id()).orElseThrow();
        if (now.state().finished() && now.abortReason() == null) {
            throw new CommandException(ErrorCode.ReshardCollectionCommitted, "the resharding of " + namespace.full() + " ("
                    + now.id() + ") committed before the abort was seen");
        }
    }

    /**
     * commitReshardCollection (MongoDB's command to make a running operation block writes and commit as soon as it
     * can): this coordinator enters the write block as soon as the recipients have caught up, so there is nothing to
     * hurry; the command joins the operation, driving it here when a crash left it unresumed, and answers once it has
     * committed.
     *
     * @return the committed operation
     * @throws CommandException NoSuchReshardCollection (339) when no operation reshards the collection, or it ended
     *                          aborted; the abort's reason when it aborts meanwhile
     */
    public ReshardingOperation commit(Namespace namespace) {
        ReshardingOperation operation = store.find(namespace).filter(o -> o.state() != CoordinatorState.QUIESCED || o.abortReason() == null)
                .orElseThrow(() -> new CommandException(ErrorCode.NoSuchReshardCollection, "no resharding of " + namespace.full() + " is running"));
        if (operation.state().finished()) {
            return operation;
        }
        return running.run(namespace.full(), OPERATION, operation.request(), () -> drive(operation.id()));
    }

    /**
     * Resumes every unfinished operation not running in this process (at start: those a crash left), each on its own
     * virtual thread; marks done the quiesced ones older than {@code shardstore.resharding.quiesce-period}.
     */
    @EventListener(ApplicationReadyEvent.class)
    @Scheduled(initialDelayString = "${shardstore.resharding.resume-interval:30s}", fixedDelayString = "${shardstore.resharding.resume-interval:30s}")
    public void resumeUnfinished() {
        store.forgetQuiescedOlderThan(properties.quiescePeriod());
        for (ReshardingOperation unfinished : store.listUnfinished()) {
            if (running.isRunning(unfinished.namespace().full())) {
                continue;
            }
            Thread.ofVirtual().name("resume-resharding-" + unfinished.id()).start(() -> {
                try {
                    log.info("resuming the resharding of {} ({}) at {}", unfinished.namespace(), unfinished.id(), unfinished.state().value());
                    running.run(unfinished.namespace().full(), OPERATION, unfinished.request(), () -> drive(unfinished.id()));
                } catch (CommandException e) {
                    log.info("the resumed resharding of {} ({}) ended: {}", unfinished.namespace(), unfinished.id(), e.getMessage());
                }
            });
        }
    }

    /** Drives operation {@code id} from its persisted state to quiesced, as its one writer. */
    private ReshardingOperation drive(UUID id) {
        long generation = store.claim(id);
        ReshardingOperation operation = store.find(id).orElseThrow();
        while (!operation.state().finished()) {
            operation = step(operation, generation);
        }
        operation.requireCommitted();
        return operation;
    }

    /** Runs {@code operation}'s state and persists the state it leads to. */
    private ReshardingOperation step(ReshardingOperation operation, long generation) {
        CoordinatorState state = operation.state();
        if (!state.beforeDecision()) {
            ReshardingOperation quiesced = operation.withState(CoordinatorState.QUIESCED);
            retryUntilDone(operation, state == CoordinatorState.COMMITTING ? () -> participants.commit(operation) : () -> participants.abort(operation));
            return advance(quiesced, generation);
        }
        ReshardingParticipants.AbortCheck abort = () -> {
            if (store.abortRequested(operation.id())) {
                throw new CommandException(ErrorCode.ReshardCollectionAborted, "abortReshardCollection was requested");
            }
        };
        try {
            abort.check();
            return switch (state) {
                case INITIALIZING -> {
                    ReshardingParticipants.Participants fixed = participants.initialize(operation);
                    if (fixed.noChange()) {
                        // already the collection's key: nothing to move, the command succeeds at once (as MongoDB's)
                        yield advance(operation.withState(CoordinatorState.QUIESCED), generation);
                    }
                    ReshardingOperation fixedOperation = operation.withParticipants(fixed.donors(), fixed.recipients(), List.of());
                    int chunks = ReshardingSplitPolicy.chunkCount(operation.request(), fixed.recipients());
                    List<ReshardedChunk> newChunks = ReshardingSplitPolicy.split(ShardKeyPattern.of(operation.request().key()),
                            participants.sampleNewKey(fixedOperation, chunks * ReshardingSplitPolicy.SAMPLES_PER_CHUNK), chunks, fixed.recipients());
                    yield advance(operation.withParticipants(fixed.donors(), fixed.recipients(), newChunks).withState(state.next()), generation);
                }
                case PREPARING_TO_DONATE -> advance(operation.withCloneTimestamp(participants.prepareToDonate(operation, abort))
                        .withState(state.next()), generation);
                case CLONING -> {
                    throughOutages(operation, abort, () -> participants.clone(operation, abort));
                    yield advance(operation.withState(state.next()), generation);
                }
                case APPLYING -> {
                    throughOutages(operation, abort, () -> participants.catchUp(operation, abort));
                    yield advance(operation.withState(state.next()), generation);
                }
                case BLOCKING_WRITES -> {
                    throughOutages(operation, abort, () -> participants.blockWritesAndVerify(operation, abort));
                    ReshardingOperation committing = operation.withState(CoordinatorState.COMMITTING);
                    if (!store.decideCommit(committing, generation)) {
                        throw new CommandException(ErrorCode.ReshardCollectionAborted, "abortReshardCollection was requested");
                    }
                    failPoints.hit(failPoint(committing.state()));
                    yield committing;
                }
                default -> throw new IllegalStateException("no step runs in state " + state.value());
            };
        } catch (CommandException e) {
            log.warn("aborting the resharding of {} ({}) in {}: {}", operation.namespace(), operation.id(), state.value(), e.getMessage());
            return advance(operation.aborting(e), generation);
        }
    }

    /** Persists {@code reached}, then passes its fail point. */
    private ReshardingOperation advance(ReshardingOperation reached, long generation) {
        store.save(reached, generation);
        failPoints.hit(failPoint(reached.state()));
        return reached;
    }

    /**
     * A step that resumes where it stopped (the recipients persist their clone and apply positions with the data, the
     * write block and the verification start over), run again while a participant is unreachable or restarting (an
     * error of MongoDB's RetriableError category: HostUnreachable, NetworkTimeout, ShutdownInProgress, ...) for at most
     * {@code shardstore.resharding.unreachable-participant-timeout}; a participant that stays away that long, or any
     * other error, aborts the operation, as before the decision every failure does.
     *
     * @throws CommandException the step's error once it is not a passing outage, or ReshardCollectionAborted (341) when
     *                          an abort is requested meanwhile
     */
    private void throughOutages(ReshardingOperation operation, ReshardingParticipants.AbortCheck abort, Runnable step) {
        long giveUpAt = System.nanoTime() + properties.unreachableParticipantTimeout().toNanos();
        while (true) {
            try {
                step.run();
                return;
            } catch (CommandException e) {
                if (!ErrorLabel.isRetriableError(e.code()) || System.nanoTime() - giveUpAt > 0) {
                    throw e;
                }
                log.warn("the {} step of the resharding of {} ({}) met an unreachable participant, trying again in {}: {}",
                        operation.state().value(), operation.namespace(), operation.id(), properties.retryInterval(), e.getMessage());
            }
            pause(operation);
            abort.check();
        }
    }

    private void pause(ReshardingOperation operation) {
        try {
            Thread.sleep(properties.retryInterval());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.Interrupted, "interrupted while " + operation.state().value()
                    + " the resharding of " + operation.namespace().full() + "; it resumes at the next start");
        }
    }

    /** A committing or aborting step: it must happen, so it is repeated until the participants complete it. */
    private void retryUntilDone(ReshardingOperation operation, Runnable step) {
        while (true) {
            try {
                step.run();
                return;
            } catch (CommandException e) {
                log.warn("the {} step of the resharding of {} ({}) failed, retrying in {}: {}", operation.state().value(),
                        operation.namespace(), operation.id(), properties.retryInterval(), e.getMessage());
            }
            pause(operation);
        }
    }

    /** The fail point passed once {@code state} is persisted: {@code reshardCollection.entered.<state>}. */
    public static String failPoint(CoordinatorState state) {
        return "reshardCollection.entered." + state.value();
    }
}
