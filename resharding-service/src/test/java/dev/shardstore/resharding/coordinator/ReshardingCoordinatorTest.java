package dev.shardstore.resharding.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.infra.EmbeddedInfra;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The coordinator's state machine against its real PostgreSQL state documents, with recording participants in place of
 * the config service and the shards: the states in order with each persisted, an error or abortReshardCollection before
 * the decision aborting (341) with the reason kept, an abort after it refused (340), a retried identical command joining,
 * another refused (338), a crash resumed from the persisted state, and the one-writer fence.
 */
@SpringBootTest(properties = {"shardstore.resharding.resume-interval=1h", "shardstore.resharding.retry-interval=10ms"})
class ReshardingCoordinatorTest {
    private static final BsonTimestamp CLONE_TIMESTAMP = new BsonTimestamp(1_700_000_000, 7);

    @Autowired
    ReshardingCoordinator coordinator;
    @Autowired
    ReshardingOperationStore store;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    RecordingParticipants participants;

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("resharding_coordinator_test").forEach((k, v) -> registry.add(k, () -> v));
        // a participant outage is waited for this long, trying again every 50 ms
        registry.add("shardstore.resharding.unreachable-participant-timeout", () -> "2s");
        registry.add("shardstore.resharding.retry-interval", () -> "50ms");
    }

    @TestConfiguration
    static class Participants {
        @Bean
        @Primary
        RecordingParticipants recordingParticipants() {
            return new RecordingParticipants();
        }
    }

    @BeforeEach
    void reset() {
        participants.reset();
    }

    @Test
    void walksTheStatesInOrderPersistingEachAndEndsQuiescedAndCommitted() {
        Namespace ns = new Namespace("app", "walk");
        List<String> persisted = new CopyOnWriteArrayList<>();
        participants.onEveryCall = op -> persisted.add(store.find(op.id()).orElseThrow().state().value());

        ReshardingOperation done = coordinator.reshard(request(ns, "country"));

        assertThat(participants.calls).containsExactly("initialize", "prepareToDonate", "clone", "catchUp", "blockWritesAndVerify", "commit");
        // each call ran after the state that asks for it was persisted
        assertThat(persisted).containsExactly("initializing", "preparing-to-donate", "cloning", "applying", "blocking-writes", "committing");
        ReshardingOperation stored = store.find(done.id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(CoordinatorState.QUIESCED);
        assertThat(stored.abortReason()).isNull();
        assertThat(stored.donorShards()).containsExactly("shard1", "shard2");
        assertThat(stored.recipientShards()).containsExactly("shard1", "shard2", "shard3");
        assertThat(stored.cloneTimestamp()).isEqualTo(CLONE_TIMESTAMP);
        assertThat(stored.toBson().getString("state").getValue()).isEqualTo("quiesced");
        assertThat(stored.temporaryNamespace().full()).isEqualTo("app.system.resharding." + done.id());

        // a retry of the same command while quiesced gets the outcome without a second run
        participants.reset();
        assertThat(coordinator.reshard(request(ns, "country")).id()).isEqualTo(done.id());
        assertThat(participants.calls).isEmpty();
    }

    @Test
    void theCollectionsOwnKeyWithoutRedistributionEndsAtOnceCommitted() {
        participants.noChange = true;
        ReshardingOperation done = coordinator.reshard(request(new Namespace("app", "same"), "country"));
        assertThat(participants.calls).containsExactly("initialize");
        assertThat(store.find(done.id()).orElseThrow().state()).isEqualTo(CoordinatorState.QUIESCED);
        assertThat(store.find(done.id()).orElseThrow().abortReason()).isNull();
    }

    @Test
    void aParticipantsErrorBeforeTheDecisionAbortsWithItsReason() {
        Namespace ns = new Namespace("app", "failing");
        participants.failIn = "clone";

        assertThatThrownBy(() -> coordinator.reshard(request(ns, "country")))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).as("the abort's reason, as MongoDB's reshardCollection answers").isEqualTo(ErrorCode.OperationFailed);
                    assertThat(e.getMessage()).contains("was aborted").contains("planted clone failure");
                });
        assertThat(participants.calls).containsExactly("initialize", "prepareToDonate", "clone", "abort");
        ReshardingOperation stored = store.find(ns).orElseThrow();
        assertThat(stored.state()).isEqualTo(CoordinatorState.QUIESCED);
        assertThat(stored.abortReason().getString("codeName").getValue()).isEqualTo("OperationFailed");

        // a new request for the collection replaces the quiesced, aborted one
        participants.reset();
        ReshardingOperation again = coordinator.reshard(request(ns, "name"));
        assertThat(again.id()).isNotEqualTo(stored.id());
        assertThat(store.find(stored.id()).orElseThrow().state()).isEqualTo(CoordinatorState.DONE);
    }

    @Test
    void aParticipantUnreachableForAWhileDuringTheCloneIsWaitedForAndOneThatStaysAwayAborts() {
        Namespace ns = new Namespace("app", "outage");
        participants.failIn = "clone";
        participants.failCode = ErrorCode.HostUnreachable;
        participants.failures = new java.util.concurrent.atomic.AtomicInteger(3);

        ReshardingOperation done = coordinator.reshard(request(ns, "country"));
        assertThat(participants.calls).containsExactly("initialize", "prepareToDonate", "clone", "clone", "clone", "clone", "catchUp",
                "blockWritesAndVerify", "commit");
        assertThat(store.find(done.id()).orElseThrow().abortReason()).isNull();

        participants.reset();
        participants.failIn = "catchUp";
        participants.failCode = ErrorCode.NetworkTimeout;
        Namespace away = new Namespace("app", "away");
        assertThatThrownBy(() -> coordinator.reshard(request(away, "country")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NetworkTimeout));
        assertThat(participants.calls).filteredOn("catchUp"::equals).hasSizeGreaterThan(1);
        assertThat(participants.calls.getLast()).isEqualTo("abort");
        assertThat(store.find(away).orElseThrow().abortReason().getString("codeName").getValue()).isEqualTo("NetworkTimeout");
    }

    @Test
    void abortWhileCloningStopsTheWaitAndTheWaitingCommandFailsWithReshardCollectionAborted() throws Exception {
        Namespace ns = new Namespace("app", "aborted");
        participants.holdIn = "clone";
        CompletableFuture<ReshardingOperation> waiting = CompletableFuture.supplyAsync(() -> coordinator.reshard(request(ns, "country")), Thread.ofVirtual()::start);
        assertThat(participants.held.await(30, TimeUnit.SECONDS)).isTrue();

        coordinator.abort(ns);

        assertThat(waiting).failsWithin(Duration.ofSeconds(30)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ReshardCollectionAborted));
        assertThat(participants.calls).containsExactly("initialize", "prepareToDonate", "clone", "abort");
        assertThat(store.find(ns).orElseThrow().abortReason().getString("errmsg").getValue()).contains("abortReshardCollection");
        // nothing left to abort
        assertThatThrownBy(() -> coordinator.abort(ns)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.NoSuchReshardCollection));
    }

    @Test
    void abortAfterTheDecisionIsRefusedWithReshardCollectionCommitted() throws Exception {
        Namespace ns = new Namespace("app", "decided");
        participants.holdIn = "commit";
        CompletableFuture<ReshardingOperation> waiting = CompletableFuture.supplyAsync(() -> coordinator.reshard(request(ns, "country")), Thread.ofVirtual()::start);
        assertThat(participants.held.await(30, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> coordinator.abort(ns)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.ReshardCollectionCommitted));
        participants.release.countDown();
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(30));
        assertThat(store.find(ns).orElseThrow().state()).isEqualTo(CoordinatorState.QUIESCED);
    }

    @Test
    void commitReshardCollectionAnswersOnceTheRunningOperationCommittedAndIs339WithoutOne() throws Exception {
        Namespace ns = new Namespace("app", "hurried");
        assertThatThrownBy(() -> coordinator.commit(ns)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.NoSuchReshardCollection));
        participants.holdIn = "catchUp";
        CompletableFuture<ReshardingOperation> waiting = CompletableFuture.supplyAsync(() -> coordinator.reshard(request(ns, "country")), Thread.ofVirtual()::start);
        assertThat(participants.held.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<ReshardingOperation> commit = CompletableFuture.supplyAsync(() -> coordinator.commit(ns), Thread.ofVirtual()::start);
        assertThat(commit).as("it waits for the commit").isNotDone();
        participants.release.countDown();
        assertThat(commit).succeedsWithin(Duration.ofSeconds(30));
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(30));
        assertThat(commit.get().id()).isEqualTo(waiting.get().id());
        assertThat(participants.calls).containsOnlyOnce("commit");
        assertThat(coordinator.commit(ns).id()).as("while quiesced, the committed outcome").isEqualTo(waiting.get().id());
    }

    @Test
    void anIdenticalRetryJoinsTheRunningOperationAndAnotherRequestIsRefused() throws Exception {
        Namespace ns = new Namespace("app", "joined");
        participants.holdIn = "catchUp";
        CompletableFuture<ReshardingOperation> first = CompletableFuture.supplyAsync(() -> coordinator.reshard(request(ns, "country")), Thread.ofVirtual()::start);
        assertThat(participants.held.await(30, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<ReshardingOperation> retry = CompletableFuture.supplyAsync(() -> coordinator.reshard(request(ns, "country")), Thread.ofVirtual()::start);
        assertThatThrownBy(() -> coordinator.reshard(request(ns, "name"))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.ReshardCollectionInProgress));
        participants.release.countDown();

        assertThat(first).succeedsWithin(Duration.ofSeconds(30));
        assertThat(retry).succeedsWithin(Duration.ofSeconds(30));
        assertThat(retry.get().id()).isEqualTo(first.get().id());
        assertThat(participants.calls).containsOnlyOnce("initialize", "commit");
    }

    @Test
    void aCrashedOperationResumesFromItsPersistedStateWithoutRepeatingTheStepsBefore() {
        Namespace ns = new Namespace("app", "resumed");
        ReshardingOperation crashed = ReshardingOperation.start(UUID.randomUUID(), request(ns, "country"))
                .withParticipants(List.of("shard1"), List.of("shard2"), List.of()).withCloneTimestamp(CLONE_TIMESTAMP).withState(CoordinatorState.CLONING);
        store.create(ReshardingOperation.start(crashed.id(), crashed.request()));
        store.save(crashed, store.claim(crashed.id()));

        coordinator.resumeUnfinished();

        await().atMost(Duration.ofSeconds(30)).until(() -> store.find(crashed.id()).orElseThrow().state() == CoordinatorState.QUIESCED);
        assertThat(participants.calls).containsExactly("clone", "catchUp", "blockWritesAndVerify", "commit");
        assertThat(store.find(crashed.id()).orElseThrow().cloneTimestamp()).isEqualTo(CLONE_TIMESTAMP);
    }

    @Test
    void anAbortOfAnOperationACrashLeftDrivesItToItsAbortedEnd() {
        Namespace ns = new Namespace("app", "leftover");
        ReshardingOperation crashed = ReshardingOperation.start(UUID.randomUUID(), request(ns, "country"))
                .withParticipants(List.of("shard1"), List.of("shard2"), List.of()).withCloneTimestamp(CLONE_TIMESTAMP).withState(CoordinatorState.CLONING);
        store.create(ReshardingOperation.start(crashed.id(), crashed.request()));
        store.save(crashed, store.claim(crashed.id()));

        coordinator.abort(ns);

        assertThat(participants.calls).containsExactly("abort");
        ReshardingOperation ended = store.find(crashed.id()).orElseThrow();
        assertThat(ended.state()).isEqualTo(CoordinatorState.QUIESCED);
        assertThat(ended.abortReason().getString("codeName").getValue()).isEqualTo("ReshardCollectionAborted");
    }

    @Test
    void aSupersededCoordinatorCannotWriteTheDocument() {
        ReshardingOperation operation = ReshardingOperation.start(UUID.randomUUID(), request(new Namespace("app", "fenced"), "country"));
        store.create(operation);
        long old = store.claim(operation.id());
        long newer = store.claim(operation.id());

        assertThatThrownBy(() -> store.save(operation.withState(CoordinatorState.PREPARING_TO_DONATE), old))
                .isInstanceOf(ReshardingOperationStore.Superseded.class);
        store.save(operation.withState(CoordinatorState.PREPARING_TO_DONATE), newer);
        assertThat(jdbc.sql("SELECT state FROM resharding_operations WHERE id = ?").param(operation.id()).query(String.class).single())
                .isEqualTo("preparing-to-donate");
        // not left for another test's resumeUnfinished to drive
        jdbc.sql("DELETE FROM resharding_operations WHERE id = ?").param(operation.id()).update();
    }

    @Test
    void theStateDocumentRoundTripsThroughItsBsonShape() {
        ReshardingOperation operation = ReshardingOperation.start(UUID.randomUUID(), request(new Namespace("app", "shape"), "country"))
                .withParticipants(List.of("shard1"), List.of("shard1", "shard2"), List.of()).withCloneTimestamp(CLONE_TIMESTAMP)
                .aborting(new CommandException(ErrorCode.BadValue, "no"));
        BsonDocument bson = operation.toBson();
        assertThat(bson.getString("ns").getValue()).isEqualTo("app.shape");
        assertThat(bson.getArray("recipientShards").get(1).asDocument().getString("id").getValue()).isEqualTo("shard2");
        assertThat(bson.getString("state").getValue()).isEqualTo("aborting");
        assertThat(ReshardingOperation.fromBson(bson)).isEqualTo(operation);
    }

    private static ReshardingRequest request(Namespace ns, String field) {
        return new ReshardingRequest(ns, new BsonDocument(field, new BsonInt32(1)), 0, false);
    }

    /** Participants that record their calls, and fail or hold (waiting on the abort check) in a named one. */
    static final class RecordingParticipants implements ReshardingParticipants {
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile java.util.function.Consumer<ReshardingOperation> onEveryCall = op -> { };
        volatile String failIn = "";
        /** The planted failure's code, and how many calls fail (the rest succeed) */
        volatile ErrorCode failCode = ErrorCode.OperationFailed;
        volatile java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger(Integer.MAX_VALUE);
        volatile String holdIn = "";
        volatile boolean noChange;
        volatile CountDownLatch held = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(1);

        void reset() {
            calls.clear();
            onEveryCall = op -> { };
            failIn = "";
            failCode = ErrorCode.OperationFailed;
            failures = new java.util.concurrent.atomic.AtomicInteger(Integer.MAX_VALUE);
            holdIn = "";
            noChange = false;
            held = new CountDownLatch(1);
            release = new CountDownLatch(1);
        }

        private void call(String name, ReshardingOperation operation, AbortCheck abort) {
            calls.add(name);
            onEveryCall.accept(operation);
            if (failIn.equals(name) && failures.getAndDecrement() > 0) {
                throw new CommandException(failCode, "planted " + name + " failure");
            }
            if (holdIn.equals(name)) {
                held.countDown();
                try {
                    while (!release.await(10, TimeUnit.MILLISECONDS)) {
                        abort.check();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        public Participants initialize(ReshardingOperation operation) {
            call("initialize", operation, () -> { });
            return noChange ? Participants.NO_CHANGE : Participants.of(List.of("shard1", "shard2"), List.of("shard1", "shard2", "shard3"));
        }

        /** Not recorded among the calls: a sample of two keys ("c" and "m" in every field), so that the new chunks are fixed at initializing. */
        @Override
        public List<BsonDocument> sampleNewKey(ReshardingOperation operation, int perDonor) {
            return List.of("m", "c").stream().map(value -> {
                BsonDocument key = new BsonDocument();
                operation.request().key().keySet().forEach(field -> key.append(field, new BsonString(value)));
                return key;
            }).toList();
        }

        @Override
        public BsonTimestamp prepareToDonate(ReshardingOperation operation, AbortCheck abort) {
            call("prepareToDonate", operation, abort);
            return CLONE_TIMESTAMP;
        }

        @Override
        public void clone(ReshardingOperation operation, AbortCheck abort) {
            call("clone", operation, abort);
        }

        @Override
        public void catchUp(ReshardingOperation operation, AbortCheck abort) {
            call("catchUp", operation, abort);
        }

        @Override
        public void blockWritesAndVerify(ReshardingOperation operation, AbortCheck abort) {
            call("blockWritesAndVerify", operation, abort);
        }

        @Override
        public void commit(ReshardingOperation operation) {
            call("commit", operation, () -> { });
        }

        @Override
        public void abort(ReshardingOperation operation) {
            call("abort", operation, () -> { });
        }
    }
}
