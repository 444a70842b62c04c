package dev.shardstore.support.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.VersionRules;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The one routing table loader of the router and the shards, with the cases their two former copies handled each their
 * own way: an incremental answer that cannot be read (the router retried it incrementally, the shard asked in full), a
 * full answer that is no table (the router wrapped its error after retries, the shard answered InternalError at once),
 * a missing {@code full} field, and failures (the router tried three times, the shard once).
 */
class RoutingTableLoaderTest {
    private static final String NS = "db.c";
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)));
    private static final BsonDocument SPLIT = new BsonDocument("x", new BsonInt32(0));

    /** The commands received, and the answers to give in order (each a supplier, so that one may throw). */
    private final List<BsonDocument> received = new ArrayList<>();
    private final Deque<Supplier<BsonDocument>> answers = new ArrayDeque<>();
    private final RoutingTableLoader loader = new RoutingTableLoader(command -> {
        received.add(command);
        return answers.removeFirst().get();
    });

    private static ShardedCollection collection(ObjectId epoch) {
        return new ShardedCollection(NS, new UUID(1, 2), epoch, new BsonTimestamp(100, 1), KEY, false, false);
    }

    private static RoutingTable twoChunks(ObjectId epoch) {
        List<ChunkVersion> versions = VersionRules.shardCollection(2, epoch, new BsonTimestamp(100, 1));
        return RoutingTable.of(collection(epoch), List.of(
                new Chunk(new ChunkRange(KEY.globalMin(), SPLIT), "sh1", versions.get(0)),
                new Chunk(new ChunkRange(SPLIT, KEY.globalMax()), "sh2", versions.get(1))));
    }

    private static BsonDocument reply(RoutingTable table, List<Chunk> chunks, boolean full) {
        BsonArray array = new BsonArray();
        chunks.forEach(c -> array.add(c.toBson()));
        return new BsonDocument("ok", new BsonInt32(1)).append("collection", table.collection().toBson()).append("chunks", array)
                .append("full", BsonBoolean.valueOf(full));
    }

    private static BsonDocument fullReply(RoutingTable table) {
        return reply(table, table.chunks(), true);
    }

    private static BsonDocument unsharded() {
        return new BsonDocument("ok", new BsonInt32(1)).append("collection", BsonNull.VALUE).append("chunks", new BsonArray())
                .append("full", BsonBoolean.TRUE);
    }

    /** RoutingTable has no value equality: its collection entry and chunks are compared. */
    private static void assertRefresh(RoutingTableLoader.Refresh refresh, @Nullable RoutingTable expected, boolean incremental) {
        assertThat(refresh.incremental()).isEqualTo(incremental);
        if (expected == null) {
            assertThat(refresh.table()).isNull();
        } else {
            assertThat(refresh.table()).isNotNull();
            assertThat(refresh.table().collection()).isEqualTo(expected.collection());
            assertThat(refresh.table().chunks()).isEqualTo(expected.chunks());
        }
    }

    private void answer(BsonDocument reply) {
        answers.add(() -> reply);
    }

    @Test
    void withoutAPreviousTableTheTableIsLoadedInFull() {
        RoutingTable table = twoChunks(new ObjectId());
        answer(fullReply(table));
        assertRefresh(loader.load(NS, null), table, false);
        assertThat(received).containsExactly(new BsonDocument("_configsvrGetRoutingTable", new BsonString(NS)));
    }

    @Test
    void withAPreviousTableOnlyTheNewerChunksAreAskedForAndApplied() {
        RoutingTable before = twoChunks(new ObjectId());
        Chunk moved = new Chunk(before.chunks().get(1).range(), "sh1", VersionRules.migratedChunk(before.collectionVersion()));
        RoutingTable after = before.withChanges(List.of(moved));
        answer(reply(after, List.of(moved), false));
        assertRefresh(loader.load(NS, before), after, true);
        assertThat(received.getFirst().getDocument("sinceVersion")).isEqualTo(before.collectionVersion().toBson());
    }

    @Test
    void anAnswerWithoutFullIsIncremental() {
        RoutingTable before = twoChunks(new ObjectId());
        BsonDocument noChanges = reply(before, List.of(), false);
        noChanges.remove("full");
        answer(noChanges);
        assertRefresh(loader.load(NS, before), before, true);
    }

    @Test
    void aFullAnswerReplacesThePreviousTable() {
        RoutingTable before = twoChunks(new ObjectId());
        RoutingTable recreated = twoChunks(new ObjectId());
        answer(fullReply(recreated));
        assertRefresh(loader.load(NS, before), recreated, false);
        assertThat(received).hasSize(1);
    }

    @Test
    void aPartialAnswerOfAnotherEpochIsAskedForAgainInFull() {
        RoutingTable before = twoChunks(new ObjectId());
        RoutingTable recreated = twoChunks(new ObjectId());
        answer(reply(recreated, List.of(), false));
        answer(fullReply(recreated));
        assertRefresh(loader.load(NS, before), recreated, false);
        assertThat(received).hasSize(2);
        assertThat(received.get(1).containsKey("sinceVersion")).isFalse();
    }

    @Test
    void changesThatDoNotFitOrCannotBeReadAreAskedForAgainInFull() {
        RoutingTable before = twoChunks(new ObjectId());
        Chunk otherEpoch = new Chunk(before.chunks().get(0).range(), "sh2", new ChunkVersion(5, 0, new ObjectId(), new BsonTimestamp(1, 1)));
        answer(reply(before, List.of(otherEpoch), false));
        answer(fullReply(before));
        assertRefresh(loader.load(NS, before), before, false);

        BsonDocument unreadable = reply(before, List.of(), false);
        unreadable.put("chunks", new BsonString("not an array"));
        answer(unreadable);
        answer(fullReply(before));
        assertRefresh(loader.load(NS, before), before, false);
    }

    @Test
    void aDroppedCollectionHasNoTable() {
        answer(unsharded());
        assertRefresh(loader.load(NS, twoChunks(new ObjectId())), null, false);
        answer(unsharded());
        assertThat(loader.load(NS, null).table()).isNull();
    }

    @Test
    void aFailureIsTriedThreeTimesInAllThenThrown() {
        RoutingTable table = twoChunks(new ObjectId());
        answers.add(() -> {
            throw new CommandException(ErrorCode.HostUnreachable, "config down");
        });
        answers.add(() -> {
            throw new CommandException(ErrorCode.LockBusy, "catalog busy");
        });
        answer(fullReply(table));
        assertRefresh(loader.load(NS, null), table, false);

        for (int i = 0; i < RoutingTableLoader.ATTEMPTS; i++) {
            answers.add(() -> {
                throw new CommandException(ErrorCode.HostUnreachable, "config down");
            });
        }
        assertThatThrownBy(() -> loader.load(NS, null)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable));
        assertThat(answers).isEmpty();
    }

    @Test
    void aFullAnswerThatIsNoTableIsInternalErrorAfterTheRetries() {
        for (int i = 0; i < RoutingTableLoader.ATTEMPTS; i++) {
            answer(new BsonDocument("ok", new BsonInt32(1)).append("collection", new BsonDocument("nonsense", BsonBoolean.TRUE)));
        }
        assertThatThrownBy(() -> loader.load(NS, null)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.InternalError)).hasMessageContaining("without a valid routing table");
        assertThat(answers).isEmpty();
    }

    @Test
    void anErrorThatIsNoCommandErrorBecomesInternalError() {
        for (int i = 0; i < RoutingTableLoader.ATTEMPTS; i++) {
            answers.add(() -> {
                throw new IllegalStateException("connection reset");
            });
        }
        assertThatThrownBy(() -> loader.load(NS, null)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.InternalError)).hasMessageContaining("connection reset");
    }
}
