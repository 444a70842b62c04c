package dev.shardstore.shard.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** {@code V3__oplog_readers.sql} on an oplog written by the earlier schema: entries keep their order and gain {@code ui}. */
class OplogMigrationTest extends ShardIntegrationTest {
    private static final String SCHEMA = "oplog_v2_to_v3";

    @Autowired
    DataSource dataSource;

    @Test
    void existingEntriesKeepTheirOrderAndGetTheirCollectionsUuid() {
        jdbc.sql("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE").update();
        Flyway.configure().dataSource(dataSource).schemas(SCHEMA).locations("classpath:db/migration").target("2").load().migrate();
        UUID kept = UUID.randomUUID();
        jdbc.sql("INSERT INTO " + SCHEMA + ".collections VALUES ('m.kept', 'm', 'kept', ?, 'c_" + kept.toString().replace("-", "")
                + "', '\\x0500000000'::bytea)").param(kept).update();
        long first = 1_700_000_000L << 32 | 1;
        for (long ts : List.of(first, first + 1, (1_700_000_001L << 32) | 1)) {
            jdbc.sql("INSERT INTO " + SCHEMA + ".oplog (ts, op, ns) VALUES (?, 'i', ?)").param(ts)
                    .param(ts == first + 1 ? "m.dropped" : "m.kept").update();
        }

        Flyway.configure().dataSource(dataSource).schemas(SCHEMA).locations("classpath:db/migration").load().migrate();

        List<String> rows = jdbc.sql("SELECT ts_key, ns, ui FROM " + SCHEMA + ".oplog ORDER BY ts_key")
                .query((rs, i) -> Oplog.tsOf(rs.getLong(1)) + " " + rs.getString(2) + " " + rs.getObject(3, UUID.class)).list();
        assertThat(rows).containsExactly(first + " m.kept " + kept, (first + 1) + " m.dropped null",
                ((1_700_000_001L << 32) | 1) + " m.kept " + kept);
        assertThat(jdbc.sql("SELECT count(*) FROM " + SCHEMA + ".oplog WHERE NOT from_migrate AND shard_key IS NULL")
                .query(Long.class).single()).isEqualTo(3);
        jdbc.sql("DROP SCHEMA " + SCHEMA + " CASCADE").update();
    }
}
