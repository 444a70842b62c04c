package dev.shardstore.support.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.operation.Caller;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** The authorization check on principals holding built-in roles. */
class CommandAuthorizerTest {
    private static final CommandAuthorizer AUTHZ = CommandAuthorizer.ENABLED;

    private static Caller holding(String role, String db) {
        RoleName name = new RoleName(role, db);
        return Caller.client("wire", new Principal(List.of(new UserName("u", "admin")), List.of(name),
                BuiltinRoles.privileges(name).orElseThrow(), Principal.Kind.USERS, 0));
    }

    private static void refused(Caller caller, String db, String json, String... messageParts) {
        assertThatThrownBy(() -> AUTHZ.check(caller, db, BsonDocument.parse(json)))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.Unauthorized);
                    assertThat(e.getMessage()).contains(messageParts);
                });
    }

    private static void allowed(Caller caller, String db, String json) {
        assertThatCode(() -> AUTHZ.check(caller, db, BsonDocument.parse(json))).doesNotThrowAnyException();
    }

    @Test
    void readMayFindButNotInsert() {
        Caller reader = holding("read", "shop");
        allowed(reader, "shop", "{find: 'orders'}");
        allowed(reader, "shop", "{aggregate: 'orders', pipeline: [], cursor: {}}");
        refused(reader, "shop", "{insert: 'orders', documents: [{}]}",
                "not authorized on shop to execute command {\"insert\": \"orders\"}", "needs action insert on");
        refused(reader, "shop", "{aggregate: 'orders', pipeline: [{$out: 'copy'}], cursor: {}}", "insert");
        refused(reader, "other", "{find: 'orders'}", "not authorized on other");
    }

    /**
     * A time-series collection's buckets ({@code system.buckets.*}) are covered by the built-in roles' privileges on
     * their database (MongoDB's {@code system_buckets} resource), other {@code system.} collections are not, and a
     * {@code {db, collection: ""}} privilege of a user-defined role covers no buckets.
     */
    @Test
    void builtInRolesReachTheirDatabasesBucketsCollectionsButNoOtherSystemCollection() {
        allowed(holding("read", "geo"), "geo", "{find: 'system.buckets.weather'}");
        refused(holding("read", "geo"), "other", "{find: 'system.buckets.weather'}", "not authorized on other");
        allowed(holding("root", "admin"), "admin", "{split: 'geo.system.buckets.weather', middle: {meta: 'Seattle'}}");
        allowed(holding("clusterManager", "admin"), "admin", "{split: 'geo.system.buckets.weather', middle: {meta: 'Seattle'}}");
        refused(holding("readWrite", "geo"), "geo", "{find: 'system.users'}", "find");
        Resource database = Resource.database("geo");
        assertThat(database.covers(Resource.collection("geo", "system.buckets.weather"))).isFalse();
        assertThat(Resource.systemBuckets("geo").covers(Resource.collection("geo", "system.buckets.weather"))).isTrue();
        assertThat(Resource.systemBuckets("geo").covers(Resource.collection("geo", "system.views"))).isFalse();
        assertThat(Resource.parse(Resource.systemBuckets("").toBson())).isEqualTo(Resource.systemBuckets(""));
    }

    @Test
    void readWriteIsBoundToItsDatabase() {
        Caller writer = holding("readWrite", "shop");
        allowed(writer, "shop", "{insert: 'orders', documents: [{}]}");
        allowed(writer, "shop", "{update: 'orders', updates: [{q: {}, u: {$set: {a: 1}}, upsert: true}]}");
        refused(writer, "crm", "{insert: 'orders', documents: [{}]}", "not authorized on crm");
        refused(writer, "shop", "{createUser: 'x', pwd: 'y', roles: []}", "createUser");
        refused(writer, "shop", "{find: 'system.users'}", "find");
        refused(writer, "admin", "{bulkWrite: 1, ops: [{insert: 0, document: {}}], nsInfo: [{ns: 'crm.c'}]}", "insert on");
        allowed(writer, "admin", "{bulkWrite: 1, ops: [{insert: 0, document: {}}], nsInfo: [{ns: 'shop.c'}]}");
    }

    /**
     * What the operator's console reads and does as a user with clusterMonitor and clusterManager (docs/architecture.md
     * "The operator's console"), as MongoDB's rules give them: $shardedDataDistribution needs the cluster's
     * shardedDataDistribution (clusterMonitor), balancerCollectionStatus enableSharding on the collection (clusterManager),
     * balancerStop an update of config.settings (clusterManager).
     */
    @Test
    void theConsolesReadsNeedClusterMonitorAndItsActionsClusterManager() {
        Caller monitor = holding("clusterMonitor", "admin");
        Caller manager = holding("clusterManager", "admin");
        String distribution = "{aggregate: 1, pipeline: [{$shardedDataDistribution: {}}], cursor: {}}";
        allowed(monitor, "admin", distribution);
        refused(manager, "admin", distribution, "shardedDataDistribution");
        refused(monitor, "admin", "{aggregate: 1, pipeline: [{$match: {}}, {$shardedDataDistribution: {}}], cursor: {}}", "find");
        allowed(manager, "admin", "{balancerCollectionStatus: 'shop.orders'}");
        refused(monitor, "admin", "{balancerCollectionStatus: 'shop.orders'}", "enableSharding");
        allowed(monitor, "admin", "{balancerStatus: 1}");
        refused(monitor, "admin", "{balancerStop: 1}", "update");
        allowed(manager, "admin", "{balancerStop: 1}");
    }

    /**
     * {@code $currentOp} with {@code allUsers: true} needs {@code inprog} on the cluster (clusterMonitor has it), without
     * it a user may list their own operations; {@code killOp} needs {@code killop} on the cluster (clusterAdmin's
     * hostManager part, root), as MongoDB's rules give them.
     */
    @Test
    void currentOpAllUsersNeedsInprogAndKillOpKillop() {
        String everyone = "{aggregate: 1, pipeline: [{$currentOp: {allUsers: true}}], cursor: {}}";
        allowed(holding("clusterMonitor", "admin"), "admin", everyone);
        refused(holding("readWrite", "shop"), "admin", everyone, "needs action inprog on cluster");
        allowed(holding("readWrite", "shop"), "admin", "{aggregate: 1, pipeline: [{$currentOp: {}}], cursor: {}}");
        allowed(holding("clusterAdmin", "admin"), "admin", "{killOp: 1, op: 12}");
        refused(holding("clusterMonitor", "admin"), "admin", "{killOp: 1, op: 12}", "needs action killop on cluster");
    }

    @Test
    void clusterRolesAndRoot() {
        allowed(holding("clusterMonitor", "admin"), "admin", "{listShards: 1}");
        refused(holding("clusterMonitor", "admin"), "admin", "{addShard: 'http://x'}", "addShard on cluster");
        allowed(holding("clusterManager", "admin"), "admin", "{shardCollection: 'shop.orders', key: {_id: 1}}");
        Caller root = holding("root", "admin");
        allowed(root, "shop", "{insert: 'orders', documents: [{}]}");
        allowed(root, "admin", "{createUser: 'x', pwd: 'y', roles: []}");
        allowed(root, "admin", "{usersInfo: 1}");
        refused(root, "admin", "{_shardsvrMoveRange: 'shop.orders'}", "internal on cluster");
        allowed(Caller.peer(), "admin", "{_shardsvrMoveRange: 'shop.orders'}");
    }

    @Test
    void unauthenticatedAndLocalhostException() {
        refused(Caller.client("wire"), "shop", "{find: 'orders'}", "command find requires authentication");
        allowed(Caller.client("wire"), "admin", "{hello: 1}");
        allowed(Caller.client("wire"), "admin", "{saslStart: 1, mechanism: 'SCRAM-SHA-256', payload: ''}");
        Caller local = Caller.client("wire", Principal.LOCALHOST_EXCEPTION);
        allowed(local, "admin", "{createUser: 'admin', pwd: 'pw', roles: ['root']}");
        refused(local, "shop", "{find: 'orders'}", "only createUser is allowed");
    }

    @Test
    void disabledLetsEverythingThroughAndUnknownCommandsAreRefused() {
        assertThatCode(() -> CommandAuthorizer.DISABLED.check(Caller.client("wire"), "shop", BsonDocument.parse("{insert: 'c'}")))
                .doesNotThrowAnyException();
        refused(holding("root", "admin"), "shop", "{noSuchCommand: 1}", "not in the privilege table");
        assertThatThrownBy(() -> CommandPrivileges.requireCovered(Set.of("find", "noSuchCommand")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("[noSuchCommand]");
    }
}
