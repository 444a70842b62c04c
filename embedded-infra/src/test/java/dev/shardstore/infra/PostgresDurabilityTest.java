package dev.shardstore.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link PostgresDurability}: the parsing of users' values, and the settings a real embedded server then runs with. */
class PostgresDurabilityTest {

    @Test
    void parsesTheTwoNamesCaseInsensitivelyAndDefaultsToDurable() {
        assertThat(PostgresDurability.parse("durable")).isEqualTo(PostgresDurability.DURABLE);
        assertThat(PostgresDurability.parse(" FAST ")).isEqualTo(PostgresDurability.FAST);
        assertThat(PostgresDurability.parse(null)).isEqualTo(PostgresDurability.DURABLE);
        assertThat(PostgresDurability.parse("")).isEqualTo(PostgresDurability.DURABLE);
        assertThatThrownBy(() -> PostgresDurability.parse("off"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown PostgreSQL durability 'off': use durable or fast");
    }

    @Test
    void onlyTheFastSettingIsDescribedAsNotCrashSafe() {
        assertThat(PostgresDurability.DURABLE.crashSafe()).isTrue();
        assertThat(PostgresDurability.DURABLE.describe()).doesNotContain("not crash-safe");
        assertThat(PostgresDurability.FAST.crashSafe()).isFalse();
        assertThat(PostgresDurability.FAST.describe()).contains("not crash-safe");
    }

    @Test
    void persistentServersAreDurableUnlessAskedOtherwise() {
        assertThat(PostgresOptions.persistent(0, java.nio.file.Path.of("unused")).durability()).isEqualTo(PostgresDurability.DURABLE);
    }

    @ParameterizedTest
    @EnumSource(PostgresDurability.class)
    void aStartedServerRunsWithTheSettingsOfItsDurability(PostgresDurability durability) throws SQLException {
        String flag = durability.crashSafe() ? "on" : "off";
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(PostgresOptions.ephemeral().withDurability(durability));
             Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres"), EmbeddedPostgresServer.USERNAME, EmbeddedPostgresServer.PASSWORD);
             Statement s = c.createStatement()) {
            assertThat(show(s, "fsync")).isEqualTo(flag);
            assertThat(show(s, "synchronous_commit")).isEqualTo(flag);
            assertThat(show(s, "full_page_writes")).isEqualTo("on");
            assertThat(show(s, "max_prepared_transactions")).as("two-phase commit's PREPARE TRANSACTION").isEqualTo("128");
        }
    }

    @Test
    void theServersSettingsAreTheDurabilitysAndPreparedTransactionsInOnePlace() {
        assertThat(EmbeddedPostgresServer.serverSettings(PostgresOptions.ephemeral().withDurability(PostgresDurability.DURABLE)))
                .isEqualTo(new TreeMap<>(Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on",
                        "max_prepared_transactions", "128")));
    }

    private static String show(Statement s, String setting) throws SQLException {
        try (ResultSet rows = s.executeQuery("SHOW " + setting)) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        }
    }
}
