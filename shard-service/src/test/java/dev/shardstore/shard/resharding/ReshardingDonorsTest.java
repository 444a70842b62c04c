package dev.shardstore.shard.resharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.storage.OplogReader;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A resharding donor's start over the shard's real commands: its {@code minFetchTimestamp} is the oplog's all-durable
 * point when it started (every later write of the collection comes after it), a repeated start answers the same, a
 * restarted shard pins again from the persisted donation, and the abort ends the donation (its oplog pin released),
 * also when repeated.
 */
class ReshardingDonorsTest extends ShardIntegrationTest {
    @Autowired
    ReshardingDonors donors;
    @Autowired
    OplogReader oplog;

    @Test
    void theDonorsMinFetchTimestampIsTheAllDurablePointAtItsStartAndItsAbortEndsTheDonation() {
        insertInto("rsdonor", "c", "{_id: 1, country: 'FR'}");
        UUID operation = UUID.randomUUID();
        BsonTimestamp before = oplog.allDurable();

        BsonDocument started = run("admin", command("_shardsvrReshardingDonorStart", operation));
        BsonTimestamp minFetch = started.getTimestamp("minFetchTimestamp");
        assertThat(Long.compareUnsigned(minFetch.getValue(), before.getValue())).isGreaterThanOrEqualTo(0);
        insertInto("rsdonor", "c", "{_id: 2, country: 'DE'}");
        assertThat(Long.compareUnsigned(oplog.allDurable().getValue(), minFetch.getValue())).as("the later insert is after it").isPositive();
        assertThat(run("admin", command("_shardsvrReshardingDonorStart", operation)).getTimestamp("minFetchTimestamp")).isEqualTo(minFetch);
        assertThat(donors.active()).extracting(d -> d.namespace().full()).contains("rsdonor.c");

        assertThat(run("admin", command("_shardsvrReshardingDonorAbort", operation)).getDouble("ok").getValue()).isEqualTo(1.0);
        assertThat(run("admin", command("_shardsvrReshardingDonorAbort", operation)).getDouble("ok").getValue()).isEqualTo(1.0);
        assertThat(donors.active()).noneMatch(d -> d.namespace().full().equals("rsdonor.c"));
    }

    @Test
    void aRestartedShardPinsTheOplogAgainForEveryPersistedDonation() {
        UUID operation = UUID.randomUUID();
        BsonTimestamp minFetch = run("admin", command("_shardsvrReshardingDonorStart", operation)).getTimestamp("minFetchTimestamp");

        ReshardingDonors restarted = new ReshardingDonors(oplog, jdbc); // what the next process builds from the same tables
        assertThat(restarted.active()).isEmpty();
        restarted.afterSingletonsInstantiated();

        assertThat(restarted.active()).singleElement().satisfies(d -> {
            assertThat(d.minFetchTimestamp()).isEqualTo(minFetch);
            assertThat(d.namespace().full()).isEqualTo("rsdonor.c");
        });
        assertThat(restarted.start(operation, Namespace.parse("rsdonor.c"))).as("a repeated start answers as the first").isEqualTo(minFetch);
        restarted.end(operation);
        run("admin", command("_shardsvrReshardingDonorAbort", operation));
        assertThat(jdbc.sql("SELECT count(*) FROM resharding_donors WHERE resharding_uuid = ?").param(operation).query(Long.class).single()).isZero();
    }

    @Test
    void aStartWithoutItsUuidIsRefusedNamingTheField() {
        BsonDocument reply = run("admin", new BsonDocument("_shardsvrReshardingDonorStart", new BsonString("rsdonor.c")));
        assertThat(reply.getString("codeName").getValue()).isEqualTo("FailedToParse");
        assertThat(reply.getString("errmsg").getValue()).contains("reshardingUUID");
    }

    private static BsonDocument command(String name, UUID operation) {
        return new BsonDocument(name, new BsonString("rsdonor.c")).append("reshardingUUID", new BsonBinary(operation, UuidRepresentation.STANDARD));
    }
}
