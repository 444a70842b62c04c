package dev.shardstore.config.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.security.ScramCredentials;
import dev.shardstore.support.security.ScramMechanism;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The user and role management commands on a real PostgreSQL, as a router forwards them. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class UserManagementCommandsTest {
    @LocalServerPort
    int port;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_users_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    private BsonDocument run(String db, String json) {
        return client.run("config", "http://localhost:" + port, db, BsonDocument.parse(json));
    }

    private static void assertCode(BsonDocument reply, int code, String message) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isZero();
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(message);
    }

    private static void assertOk(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }

    private long generation() {
        return run("admin", "{_getUserCacheGeneration: 1}").getInt64("cacheGeneration").getValue();
    }

    @Test
    void usersAreStoredAsMongoDbStoresThemWithoutTheirPassword() {
        long before = generation();
        assertOk(run("shop", "{createUser: 'alice', pwd: 'pencil-1', roles: ['read', {role: 'clusterMonitor', db: 'admin'}]}"));
        assertThat(generation()).isGreaterThan(before);
        assertCode(run("shop", "{createUser: 'alice', pwd: 'x', roles: []}"), 51003, "User \"alice@shop\" already exists");
        assertCode(run("shop", "{createUser: 'bob', pwd: 'x', roles: ['noSuchRole']}"), 31, "Could not find role: noSuchRole@shop");

        BsonDocument user = run("shop", "{usersInfo: 'alice', showCredentials: true, showPrivileges: true}").getArray("users").get(0).asDocument();
        assertThat(user.getString("_id").getValue()).isEqualTo("shop.alice");
        assertThat(user.toJson()).doesNotContain("pencil-1");
        BsonDocument sha256 = user.getDocument("credentials").getDocument("SCRAM-SHA-256");
        assertThat(sha256.keySet()).containsExactly("iterationCount", "salt", "storedKey", "serverKey");
        ScramCredentials stored = ScramCredentials.parse(ScramMechanism.SCRAM_SHA_256, sha256);
        assertThat(ScramCredentials.derive(ScramMechanism.SCRAM_SHA_256, "pencil-1", stored.salt(), stored.iterationCount()).storedKey())
                .isEqualTo(stored.storedKey());
        assertThat(user.getDocument("credentials").containsKey("SCRAM-SHA-1")).isTrue();
        assertThat(user.getArray("inheritedPrivileges").toString()).contains("listShards", "find");
        assertThat(run("shop", "{usersInfo: 'alice'}").getArray("users").get(0).asDocument().containsKey("credentials")).isFalse();

        assertOk(run("shop", "{updateUser: 'alice', pwd: 'pencil-2'}"));
        BsonDocument changed = run("shop", "{usersInfo: 'alice', showCredentials: true}").getArray("users").get(0).asDocument()
                .getDocument("credentials").getDocument("SCRAM-SHA-256");
        assertThat(changed.getString("storedKey")).isNotEqualTo(sha256.getString("storedKey"));
        assertCode(run("shop", "{updateUser: 'nobody', pwd: 'x'}"), 11, "Could not find user \"nobody@shop\"");

        assertOk(run("shop", "{grantRolesToUser: 'alice', roles: ['readWrite']}"));
        assertOk(run("shop", "{revokeRolesFromUser: 'alice', roles: ['read']}"));
        assertThat(run("shop", "{usersInfo: {user: 'alice', db: 'shop'}}").getArray("users").get(0).asDocument().getArray("roles"))
                .extracting(v -> v.asDocument().getString("role").getValue()).containsExactly("clusterMonitor", "readWrite");

        assertOk(run("shop", "{dropUser: 'alice'}"));
        assertCode(run("shop", "{dropUser: 'alice'}"), 11, "Could not find user");
        assertThat(run("shop", "{usersInfo: 1}").getArray("users")).isEmpty();
    }

    @Test
    void userDefinedRolesInheritAndDropFromTheirHolders() {
        assertOk(run("crm", "{createRole: 'reporter', privileges: [{resource: {db: 'crm', collection: 'reports'}, actions: ['find']}], "
                + "roles: [{role: 'read', db: 'crm'}]}"));
        assertCode(run("crm", "{createRole: 'reporter', privileges: [], roles: []}"), 51002, "Role \"reporter@crm\" already exists");
        assertOk(run("crm", "{grantPrivilegesToRole: 'reporter', privileges: [{resource: {db: 'crm', collection: 'reports'}, actions: ['insert']}]}"));
        assertOk(run("crm", "{revokePrivilegesFromRole: 'reporter', privileges: [{resource: {db: 'crm', collection: 'reports'}, actions: ['find']}]}"));
        BsonDocument role = run("crm", "{rolesInfo: 'reporter', showPrivileges: true}").getArray("roles").get(0).asDocument();
        assertThat(role.getArray("privileges").toString()).contains("insert").doesNotContain("\"find\"");
        assertThat(role.getArray("inheritedRoles").toString()).contains("read");
        assertThat(role.getArray("inheritedPrivileges").toString()).contains("listCollections");

        assertOk(run("crm", "{createUser: 'carol', pwd: 'pw', roles: ['reporter']}"));
        assertOk(run("crm", "{dropRole: 'reporter'}"));
        assertThat(run("crm", "{usersInfo: 'carol'}").getArray("users").get(0).asDocument().getArray("roles")).isEmpty();
        assertCode(run("crm", "{dropRole: 'reporter'}"), 31, "Could not find role: reporter@crm");
        assertThat(run("crm", "{dropAllUsersFromDatabase: 1}").getInt32("n").getValue()).isEqualTo(1);
    }
}
