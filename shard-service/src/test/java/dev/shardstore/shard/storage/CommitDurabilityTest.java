package dev.shardstore.shard.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.infra.EmbeddedPostgresServer;
import dev.shardstore.infra.PostgresDurability;
import dev.shardstore.infra.PostgresOptions;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** {@link CommitDurability} against real embedded servers of both durability settings. */
class CommitDurabilityTest {

    private static CommitDurability over(EmbeddedPostgresServer pg) {
        return new CommitDurability(JdbcClient.create(new DriverManagerDataSource(pg.jdbcUrl("postgres"),
                EmbeddedPostgresServer.USERNAME, EmbeddedPostgresServer.PASSWORD)));
    }

    @Test
    void aDurableServerHonoursJ() {
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(PostgresOptions.ephemeral().withDurability(PostgresDurability.DURABLE))) {
            CommitDurability durability = over(pg);
            assertThat(durability.flushesCommits()).isTrue();
            durability.requireHonoured(ExtendedJson.parse("{insert: 'c', documents: [], writeConcern: {w: 1, j: true}}"));
            durability.requireHonoured(ExtendedJson.parse("{update: 'c', updates: [], writeConcern: {fsync: true}}"));
        }
    }

    @Test
    void theFastSettingRefusesJAndAcceptsEverythingElse() {
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(PostgresOptions.ephemeral().withDurability(PostgresDurability.FAST))) {
            CommitDurability durability = over(pg);
            assertThat(durability.flushesCommits()).isFalse();
            assertThatThrownBy(() -> durability.requireHonoured(ExtendedJson.parse("{insert: 'c', documents: [], writeConcern: {j: true}}")))
                    .isInstanceOf(CommandException.class)
                    .hasMessageContaining("cannot satisfy 'insert.writeConcern.j'")
                    .hasMessageContaining("--durability fast")
                    .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.BadValue));
            assertThatThrownBy(() -> durability.requireHonoured(ExtendedJson.parse("{delete: 'c', deletes: [], writeConcern: {fsync: 1}}")))
                    .isInstanceOf(CommandException.class).hasMessageContaining("'delete.writeConcern.j'");
            durability.requireHonoured(ExtendedJson.parse("{insert: 'c', documents: [], writeConcern: {w: 'majority', j: false}}"));
            durability.requireHonoured(ExtendedJson.parse("{insert: 'c', documents: []}"));
        }
    }
}
