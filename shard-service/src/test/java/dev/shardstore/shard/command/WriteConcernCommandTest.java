package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.storage.CommitDurability;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Write concerns on the shard's write commands: what one copy satisfies is written and acknowledged; what it cannot
 * satisfy, and a {@code j} the shard's PostgreSQL does not honour, is refused before anything is written.
 */
class WriteConcernCommandTest extends ShardIntegrationTest {
    private static final String DB = "write_concern";

    @Autowired
    CommitDurability durability;

    @Test
    void oneCopyWriteConcernsAreAcknowledged() {
        assertThat(run(DB, "{insert: 'ok', documents: [{_id: 1}], writeConcern: {w: 1, wtimeout: 10}}").getInt32("n").getValue()).isOne();
        assertThat(run(DB, "{insert: 'ok', documents: [{_id: 2}], writeConcern: {w: 'majority'}}").getInt32("n").getValue()).isOne();
        assertThat(run(DB, "{update: 'ok', updates: [{q: {_id: 2}, u: {$set: {a: 1}}}], writeConcern: {w: 0}}").getInt32("n").getValue()).isOne();
        assertThat(documentsOf(DB, "ok")).hasSize(2);
    }

    @Test
    void unsatisfiableWriteConcernsWriteNothing() {
        run(DB, "{insert: 'refused', documents: [{_id: 0}]}");
        assertThat(run(DB, "{insert: 'refused', documents: [{_id: 1}], writeConcern: {w: 2}}").getNumber("code").intValue()).isEqualTo(100);
        assertThat(run(DB, "{insert: 'refused', documents: [{_id: 2}], writeConcern: {w: 'dc1'}}").getNumber("code").intValue()).isEqualTo(79);
        assertThat(run(DB, "{delete: 'refused', deletes: [{q: {}, limit: 0}], writeConcern: {w: 5}}").getNumber("code").intValue()).isEqualTo(100);
        assertThat(documentsOf(DB, "refused")).hasSize(1);
    }

    /** The suite's server runs with the fast setting (root pom.xml); a durable one writes (CommitDurabilityTest shows both). */
    @Test
    void jIsHonouredOrRefusedBeforeWritingAsTheServerFlushes() {
        BsonDocument reply = run(DB, "{insert: 'journaled', documents: [{_id: 1}], writeConcern: {w: 1, j: true}}");
        if (durability.flushesCommits()) {
            assertThat(reply.getInt32("n").getValue()).isOne();
            assertThat(documentsOf(DB, "journaled")).hasSize(1);
        } else {
            assertThat(reply.getNumber("code").intValue()).isEqualTo(2);
            assertThat(reply.getString("errmsg").getValue()).contains("insert.writeConcern.j");
            assertThat(documentsOf(DB, "journaled")).isEmpty();
        }
    }
}
