package dev.shardstore.router.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.RoleName;
import dev.shardstore.support.security.UserName;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log's events: which commands are recorded, what their {@code param} keeps, the file's JSON lines, the bound. */
class AuditLogTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-03T07:00:00Z"), ZoneOffset.UTC);
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.1.2.3", 50_123);
    private final Principal admin = new Principal(List.of(new UserName("admin", "admin")), List.of(new RoleName("root", "admin")),
            List.of(), Principal.Kind.USERS, 1);

    @Test
    void userChangesDdlAndShardingAdministrationAreRecordedAndReadsAreNot(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("audit.json");
        AuditLog log = new AuditLog(new AuditProperties(file, 10), CLOCK);
        log.command(CLIENT, admin, "shop", BsonDocument.parse("{createUser: 'app', pwd: 'app-secret', roles: ['readWrite'],"
                + " lsid: {id: 1}, $clusterTime: {}}"), 0);
        log.command(CLIENT, admin, "shop", BsonDocument.parse("{drop: 'orders'}"), 26);
        log.command(CLIENT, admin, "admin", BsonDocument.parse("{shardCollection: 'shop.orders', key: {_id: 'hashed'}}"), 0);
        log.command(CLIENT, admin, "shop", BsonDocument.parse("{find: 'orders'}"), 0);
        log.command(CLIENT, admin, "shop", BsonDocument.parse("{insert: 'orders', documents: [{}]}"), 0);
        log.authentication(CLIENT, new UserName("app", "shop"), "SCRAM-SHA-256", 18);
        log.close();

        assertThat(log.recent()).extracting(AuditEvent::atype)
                .containsExactly("createUser", "dropCollection", "shardCollection", "authenticate");
        AuditEvent created = log.recent().getFirst();
        assertThat(created.param()).isEqualTo(BsonDocument.parse("{db: 'shop', createUser: 'app', roles: ['readWrite']}"));
        assertThat(created.users()).extracting(Object::toString).containsExactly("admin@admin");
        assertThat(log.recent().get(1).result()).isEqualTo(26);
        assertThat(log.recent().get(3).users()).as("a failed attempt names no one as acting").isEmpty();

        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(4).noneMatch(line -> line.contains("app-secret"));
        BsonDocument first = ExtendedJson.parse(lines.getFirst());
        assertThat(first.getString("atype").getValue()).isEqualTo("createUser");
        assertThat(first.getDateTime("ts").getValue()).isEqualTo(CLOCK.millis());
        assertThat(first.getDocument("remote")).isEqualTo(BsonDocument.parse("{ip: '10.1.2.3', port: 50123}"));
        assertThat(first.getArray("roles").getFirst().asDocument()).isEqualTo(BsonDocument.parse("{role: 'root', db: 'admin'}"));
        assertThat(first.getInt32("result").getValue()).isZero();
    }

    @Test
    void theFileIsAppendedToAcrossRestartsAndOnlyTheLatestEventsAreKeptInMemory(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("audit.json");
        for (int run = 0; run < 2; run++) {
            AuditLog log = new AuditLog(new AuditProperties(file, 2), CLOCK);
            for (int i = 0; i < 3; i++) {
                log.command(null, Principal.NONE, "db" + i, BsonDocument.parse("{dropDatabase: 1}"), 0);
            }
            assertThat(log.recent()).extracting(e -> e.param().getString("db").getValue()).containsExactly("db1", "db2");
            log.close();
        }
        assertThat(Files.readAllLines(file)).hasSize(6);
    }
}
