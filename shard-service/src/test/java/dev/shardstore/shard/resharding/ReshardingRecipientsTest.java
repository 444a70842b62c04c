package dev.shardstore.shard.resharding;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.Test;

/**
 * A recipient's clone and oplog apply over the shard's real commands, this shard being its own donor (listShards names
 * it): the clone copies the documents as of {@code cloneTimestamp} whose new key is in the recipient's range, page by
 * page with a persisted resume token (a second step goes on where the first stopped, it does not start over); writes
 * after that time come with the apply, an update that moves a document out of the range deletes it; the digests of
 * both sides agree; the commit renames the temporary collection onto the collection.
 */
class ReshardingRecipientsTest extends ShardIntegrationTest {
    private static final String DB = "rsrecv";
    private static final int DOCUMENTS = 1500; // more than one clone page (1000 rows)

    @Test
    void theCloneResumesFromItsTokenAndTheApplyFollowsWritesAfterTheCloneTimestamp() {
        ConfigServerStub.instance().registerShard(SHARD_NAME, "http://127.0.0.1:" + port);
        ShardedCollection old = collection(DB + ".c", "{_id: 1}");
        ConfigServerStub.instance().putRoutingTable(old, List.of(chunk(old, "{_id: {$minKey: 1}}", "{_id: {$maxKey: 1}}", SHARD_NAME, 1, 0)));
        // a versioned read loads the filtering metadata, so the writes below record their document key in the oplog
        run(DB, versioned("{find: 'c'}", version(old, 1, 0)));
        BsonArray documents = new BsonArray();
        for (int i = 0; i < DOCUMENTS; i++) {
            documents.add(new BsonDocument("_id", new BsonInt32(i)).append("country", new BsonString(i % 2 == 0 ? "DE" : "FR")));
        }
        run(DB, new BsonDocument("insert", new BsonString("c")).append("documents", documents));
        UUID operation = UUID.randomUUID();
        BsonTimestamp cloneTimestamp = run("admin", command("_shardsvrReshardingDonorStart", operation)).getTimestamp("minFetchTimestamp");
        // after the clone timestamp: the clone must not see these, the apply must
        run(DB, "{insert: 'c', documents: [{_id: 'new', country: 'FR'}]}");
        run(DB, "{update: 'c', updates: [{q: {_id: 1}, u: {$set: {country: 'DE'}}}]}"); // leaves the FR range
        run(DB, "{delete: 'c', deletes: [{q: {_id: 3}, limit: 1}]}");

        BsonDocument clone = receipt("_shardsvrReshardingRecipientClone", operation, cloneTimestamp).append("maxSteps", new BsonInt32(1));
        BsonDocument first = run("admin", clone);
        assertThat(first.getBoolean("done").getValue()).as("%s", first).isFalse();
        assertThat(first.getInt64("count").getValue()).isLessThan(DOCUMENTS / 2);
        // $currentOp lists the operation on this shard as donor and as recipient, cloning, with what it copied
        List<BsonValue> listed = run("admin", BsonDocument.parse("{aggregate: 1, pipeline: [{$currentOp: {allUsers: true}},"
                + " {$match: {desc: {$regex: '^Resharding'}}}, {$sort: {desc: 1}}], cursor: {}}")).getDocument("cursor").getArray("firstBatch");
        assertThat(listed).hasSize(2);
        assertThat(listed.get(0).asDocument().getString("desc").getValue()).isEqualTo("ReshardingDonorService " + operation);
        assertThat(listed.get(0).asDocument().getString("ns").getValue()).isEqualTo(DB + ".c");
        assertThat(listed.get(1).asDocument().getString("desc").getValue()).isEqualTo("ReshardingRecipientService " + operation);
        assertThat(listed.get(1).asDocument().getString("recipientState").getValue()).isEqualTo("cloning");
        assertThat(listed.get(1).asDocument().getInt64("documentsCopied").getValue()).isEqualTo(first.getInt64("count").getValue());
        BsonDocument second = run("admin", clone);
        assertThat(second.getBoolean("done").getValue()).as("%s", second).isTrue();
        assertThat(first.getInt64("count").getValue() + second.getInt64("count").getValue())
                .as("the second step went on from the token: every FR document once, as of the clone timestamp").isEqualTo(DOCUMENTS / 2);
        Namespace temporary = new Namespace(DB, "system.resharding." + operation);
        assertThat(documentsOf(DB, temporary.collection())).hasSize(DOCUMENTS / 2).noneMatch(d -> d.get("_id").equals(new BsonString("new")));

        BsonDocument apply = run("admin", receipt("_shardsvrReshardingRecipientApply", operation, cloneTimestamp));
        assertThat(apply.getBoolean("done").getValue()).as("%s", apply).isTrue();
        List<BsonDocument> received = documentsOf(DB, temporary.collection());
        assertThat(received).hasSize(DOCUMENTS / 2 - 1).allMatch(d -> d.getString("country").getValue().equals("FR"))
                .anyMatch(d -> d.get("_id").equals(new BsonString("new")))
                .noneMatch(d -> d.get("_id").equals(new BsonInt32(1)) || d.get("_id").equals(new BsonInt32(3)));

        BsonDocument donor = run("admin", command("_shardsvrReshardingDigest", operation).append("key", key()).append("ranges", frRange())
                .append("ownedOnly", org.bson.BsonBoolean.TRUE));
        BsonDocument recipient = run("admin", new BsonDocument("_shardsvrReshardingDigest", new BsonString(temporary.full()))
                .append("reshardingUUID", uuid(operation)).append("key", key()).append("ranges", frRange()));
        assertThat(recipient.getArray("digests")).as("%s", recipient).isEqualTo(donor.getArray("digests"));

        run("admin", command("_shardsvrReshardingRecipientCommit", operation));
        assertThat(documentsOf(DB, "c")).hasSize(DOCUMENTS / 2 - 1);
        assertThat(documentsOf(DB, temporary.collection())).isEmpty();
        run("admin", command("_shardsvrReshardingDonorAbort", operation));
    }

    private static BsonDocument receipt(String name, UUID operation, BsonTimestamp cloneTimestamp) {
        return command(name, operation).append("key", key()).append("cloneTimestamp", cloneTimestamp).append("ranges", frRange())
                .append("donorShards", new BsonArray(List.of(new BsonString(SHARD_NAME))));
    }

    /** The recipient's one new chunk: {@code country} from "E" to "G" (FR, not DE). */
    private static BsonArray frRange() {
        return new BsonArray(List.of(ExtendedJson.parse("{min: {country: 'E'}, max: {country: 'G'}}")));
    }

    private static BsonDocument key() {
        return new BsonDocument("country", new BsonInt32(1));
    }

    private static BsonDocument command(String name, UUID operation) {
        return new BsonDocument(name, new BsonString(DB + ".c")).append("reshardingUUID", uuid(operation));
    }

    private static BsonBinary uuid(UUID operation) {
        return new BsonBinary(operation, UuidRepresentation.STANDARD);
    }
}
