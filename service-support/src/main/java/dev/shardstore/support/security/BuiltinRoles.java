package dev.shardstore.support.security;

import static dev.shardstore.support.security.ActionType.*;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * MongoDB's built-in roles (MongoDB manual "Built-In Roles"), as the privileges each grants on the database it is
 * defined on: {@code read}, {@code readWrite}, {@code dbAdmin}, {@code userAdmin}, {@code dbOwner} on any database;
 * {@code readAnyDatabase}, {@code readWriteAnyDatabase}, {@code userAdminAnyDatabase}, {@code dbAdminAnyDatabase},
 * {@code clusterMonitor}, {@code clusterManager}, {@code clusterAdmin}, {@code root} and {@code __system} on
 * {@code admin} only. The action lists are MongoDB's, cut to the actions of {@link ActionType}.
 */
public final class BuiltinRoles {
    private static final String ADMIN = "admin";
    private static final Set<ActionType> READ = EnumSet.of(find, listCollections, listIndexes, collStats, dbStats, dbHash, changeStream,
            killCursors, listCursors);
    private static final Set<ActionType> WRITE = EnumSet.of(insert, update, remove, createCollection, dropCollection, createIndex,
            dropIndex, convertToCapped, renameCollectionSameDB);
    private static final Set<ActionType> DB_ADMIN = EnumSet.of(bypassDocumentValidation, collMod, collStats, compact, convertToCapped,
            createCollection, createIndex, dbStats, dropCollection, dropDatabase, dropIndex, enableProfiler, listCollections, listIndexes,
            planCacheRead, planCacheWrite, reIndex, renameCollectionSameDB, validate);
    private static final Set<ActionType> USER_ADMIN = EnumSet.of(changeCustomData, changePassword, createRole, createUser, dropRole,
            dropUser, grantRole, revokeRole, setAuthenticationRestriction, viewRole, viewUser);
    private static final Set<ActionType> CLUSTER_MONITOR = EnumSet.of(checkMetadataConsistency, connPoolStats, getCmdLineOpts, getLog,
            getParameter, getShardMap, hostInfo, inprog, listDatabases, listSessions, listShards, netstat, serverStatus, top,
            shardedDataDistribution);
    private static final Set<ActionType> CLUSTER_MANAGER = EnumSet.of(addShard, removeShard, listShards, listSessions, flushRouterConfig,
            cleanupOrphaned, applicationMessage, setParameter);
    private static final Set<ActionType> SHARDING_ON_ANY_DATABASE = EnumSet.of(enableSharding, moveChunk, splitChunk, splitVector,
            refineCollectionShardKey, reshardCollection);
    private static final Set<ActionType> HOST_MANAGER = EnumSet.of(killop, killAnySession, logRotate, shutdown, setParameter,
            flushRouterConfig);
    /** The roles defined on every database; the others are defined on {@code admin} only. */
    private static final Set<String> ANY_DATABASE_ROLES = Set.of("read", "readWrite", "dbAdmin", "userAdmin", "dbOwner");
    /** Every built-in role's name. */
    public static final Set<String> NAMES = Set.of("read", "readWrite", "dbAdmin", "userAdmin", "dbOwner", "readAnyDatabase",
            "readWriteAnyDatabase", "userAdminAnyDatabase", "dbAdminAnyDatabase", "clusterMonitor", "clusterManager", "clusterAdmin",
            "root", "__system");

    private BuiltinRoles() {}

    /** True when {@code role} names a built-in role (which exists only on its databases, see the class comment). */
    public static boolean isBuiltin(RoleName role) {
        return NAMES.contains(role.role()) && (ANY_DATABASE_ROLES.contains(role.role()) || ADMIN.equals(role.db()));
    }

    /** The privileges of built-in role {@code role}; empty when it names none. */
    public static Optional<List<Privilege>> privileges(RoleName role) {
        if (!isBuiltin(role)) {
            return Optional.empty();
        }
        Resource db = Resource.database(role.db());
        List<Privilege> privileges = new ArrayList<>();
        switch (role.role()) {
            case "read" -> privileges.add(new Privilege(db, READ));
            case "readWrite" -> privileges.add(new Privilege(db, union(READ, WRITE)));
            case "dbAdmin" -> privileges.add(new Privilege(db, DB_ADMIN));
            case "userAdmin" -> privileges.add(new Privilege(db, USER_ADMIN));
            case "dbOwner" -> privileges.add(new Privilege(db, union(READ, WRITE, DB_ADMIN, USER_ADMIN)));
            case "readAnyDatabase" -> anyDatabase(privileges, READ);
            case "readWriteAnyDatabase" -> anyDatabase(privileges, union(READ, WRITE));
            case "userAdminAnyDatabase" -> anyDatabase(privileges, USER_ADMIN);
            case "dbAdminAnyDatabase" -> anyDatabase(privileges, DB_ADMIN);
            case "clusterMonitor" -> clusterMonitor(privileges);
            case "clusterManager" -> clusterManager(privileges);
            case "clusterAdmin" -> {
                clusterMonitor(privileges);
                clusterManager(privileges);
                privileges.add(new Privilege(Resource.CLUSTER, HOST_MANAGER));
                privileges.add(Privilege.of(Resource.ANY_NORMAL, dropDatabase));
            }
            case "root" -> {
                // readWriteAnyDatabase, dbAdminAnyDatabase, userAdminAnyDatabase, clusterAdmin, restore and backup:
                // every action but the cluster members' own, on every resource but other members' internals
                EnumSet<ActionType> all = EnumSet.complementOf(EnumSet.of(internal, impersonate, advanceClusterTime));
                privileges.add(new Privilege(Resource.ANY_NORMAL, all));
                privileges.add(new Privilege(Resource.CLUSTER, all));
                privileges.add(new Privilege(new Resource(Resource.Kind.COLLECTION_IN_ANY_DATABASE, "", "system.users"), READ));
                privileges.add(new Privilege(new Resource(Resource.Kind.COLLECTION_IN_ANY_DATABASE, "", "system.roles"), READ));
                privileges.add(new Privilege(new Resource(Resource.Kind.COLLECTION_IN_ANY_DATABASE, "", "system.views"), union(READ, WRITE)));
            }
            case "__system" -> privileges.add(new Privilege(Resource.ANY_RESOURCE, EnumSet.allOf(ActionType.class)));
            default -> throw new IllegalStateException("built-in role without privileges: " + role);
        }
        return Optional.of(withSystemBuckets(privileges));
    }

    /**
     * {@code privileges} with, beside each privilege on a database or on every normal resource, the same actions on
     * that database's (or every database's) time-series buckets collections, as MongoDB's built-in roles grant them
     * (the {@code system_buckets} resource since 5.0): a time-series collection's reads, writes and sharding
     * administration reach its {@code system.buckets} collection.
     */
    private static List<Privilege> withSystemBuckets(List<Privilege> privileges) {
        List<Privilege> all = new ArrayList<>(privileges);
        for (Privilege privilege : privileges) {
            Resource resource = privilege.resource();
            if (resource.kind() == Resource.Kind.DATABASE || resource.kind() == Resource.Kind.ANY_NORMAL) {
                all.add(new Privilege(Resource.systemBuckets(resource.db()), privilege.actions()));
            }
        }
        return List.copyOf(all);
    }

    private static void anyDatabase(List<Privilege> privileges, Set<ActionType> actions) {
        privileges.add(new Privilege(Resource.ANY_NORMAL, actions));
        privileges.add(Privilege.of(Resource.CLUSTER, listDatabases));
    }

    private static void clusterMonitor(List<Privilege> privileges) {
        privileges.add(new Privilege(Resource.CLUSTER, CLUSTER_MONITOR));
        privileges.add(new Privilege(Resource.database("config"), READ));
        privileges.add(new Privilege(Resource.database("local"), READ));
    }

    private static void clusterManager(List<Privilege> privileges) {
        privileges.add(new Privilege(Resource.CLUSTER, CLUSTER_MANAGER));
        privileges.add(new Privilege(Resource.ANY_NORMAL, SHARDING_ON_ANY_DATABASE));
        privileges.add(new Privilege(Resource.database("config"), union(READ, WRITE)));
    }

    @SafeVarargs
    private static Set<ActionType> union(Set<ActionType>... sets) {
        EnumSet<ActionType> all = EnumSet.noneOf(ActionType.class);
        for (Set<ActionType> set : sets) {
            all.addAll(set);
        }
        return all;
    }
}
