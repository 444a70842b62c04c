package dev.shardstore.router.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.support.security.ActionType;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.Resource;
import dev.shardstore.support.security.UserName;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * {@link UserDirectory}'s principal cache: one {@code usersInfo} per user and user cache generation, resolved again
 * once the generation moves on (issue 39's goal: authorization is not re-read per command). The config service is a
 * function answering its two commands as the config service does.
 */
class UserDirectoryTest {
    private static final UserName ALICE = new UserName("alice", "admin");
    private static final String READER = "{users: [{user: 'alice', db: 'admin', inheritedRoles: [{role: 'read', db: 'app'}],"
            + " inheritedPrivileges: [{resource: {db: 'app', collection: ''}, actions: ['find']}]}], ok: 1}";
    private static final String WRITER = "{users: [{user: 'alice', db: 'admin', inheritedRoles: [{role: 'readWrite', db: 'app'}],"
            + " inheritedPrivileges: [{resource: {db: 'app', collection: ''}, actions: ['find', 'insert']}]}], ok: 1}";

    private final AtomicLong generation = new AtomicLong(7);
    private final AtomicInteger usersInfos = new AtomicInteger();
    private final AtomicReference<String> alice = new AtomicReference<>(READER);
    private final UserDirectory directory = new UserDirectory(command -> {
        if (command.containsKey("_getUserCacheGeneration")) {
            return new BsonDocument("anyUser", org.bson.BsonBoolean.TRUE).append("cacheGeneration", new org.bson.BsonInt64(generation.get()))
                    .append("ok", new org.bson.BsonInt32(1));
        }
        usersInfos.incrementAndGet();
        return ExtendedJson.parse(alice.get());
    }, new ClientSecurityProperties(ClientSecurityProperties.Mode.enabled, Duration.ofHours(1), Duration.ofHours(1)));

    private boolean mayInsert(Principal principal) {
        return principal.isAuthorized(Resource.collection("app", "orders"), ActionType.insert);
    }

    @Test
    void aUsersPrincipalIsReadOncePerGenerationAndAgainWhenItMovesOn() {
        directory.refresh();
        Principal first = directory.principal(ALICE);
        for (int request = 0; request < 100; request++) {
            assertThat(directory.principal(ALICE)).isSameAs(first);
        }
        assertThat(usersInfos.get()).as("one usersInfo for 101 requests").isEqualTo(1);
        assertThat(mayInsert(first)).isFalse();

        alice.set(WRITER); // grantRolesToUser on some router: the config service's generation moves on
        assertThat(mayInsert(directory.principal(ALICE))).as("the cached principal until the poll sees the change").isFalse();
        generation.incrementAndGet();
        directory.refresh();
        Principal granted = directory.principal(ALICE);
        assertThat(mayInsert(granted)).isTrue();
        assertThat(usersInfos.get()).isEqualTo(2);

        alice.set("{users: [], ok: 1}"); // dropUser
        generation.incrementAndGet();
        directory.refresh();
        assertThat(directory.principal(ALICE)).isEqualTo(Principal.NONE);
    }

    @Test
    void nothingIsCachedBeforeTheFirstPoll() {
        directory.principal(ALICE);
        directory.principal(ALICE);
        assertThat(usersInfos.get()).as("generation -1: unknown, so every request reads").isEqualTo(2);
    }
}
