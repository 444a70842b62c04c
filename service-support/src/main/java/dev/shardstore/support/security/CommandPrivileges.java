package dev.shardstore.support.security;

import static dev.shardstore.support.security.ActionType.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The one table from a client command's name to the privileges it needs (MongoDB manual "Built-In Roles" and each
 * command's "Access Control" section): the actions, on the cluster, on the database the command runs on, or on the
 * collection it names. {@link CommandAuthorizer} reads it before every command; a command that is not in it is
 * refused to everyone but cluster members, and a router whose registry serves a command missing here does not start
 * ({@link #requireCovered}), so no new command slips through unchecked.
 *
 * <p>Commands that need no privilege (MongoDB's too): the handshake and authentication ({@code hello},
 * {@code saslStart}, {@code logout}...), {@code ping}, {@code buildInfo}, {@code connectionStatus}, the session
 * commands on the caller's own sessions, and {@code commitTransaction} / {@code abortTransaction} (the statements were
 * checked). {@code listDatabases} checks its caller itself, since what it lists depends on the caller's privileges. Names beginning with {@code _} are cluster-internal: {@code internal} on the cluster, held by
 * {@code __system} alone.
 */
public final class CommandPrivileges {
    /**
     * One privilege a command needs.
     *
     * @param resource the target: the cluster, a database or a collection
     * @param action   the action on it
     */
    public record Required(Resource resource, ActionType action) {
        /** As an error message names it: {@code insert on {"db": "shop", "collection": "orders"}}. */
        @Override
        public String toString() {
            return action + " on " + resource;
        }
    }

    /** What one command needs, from the database it runs on and its document. */
    @FunctionalInterface
    private interface Rule {
        List<Required> required(String db, BsonDocument command);
    }

    private static final Rule NONE = (db, command) -> List.of();
    private static final Map<String, Rule> RULES = new HashMap<>();

    static {
        for (String name : List.of("hello", "isMaster", "ismaster", "ping", "buildInfo", "buildinfo", "saslStart", "saslContinue",
                "logout", "connectionStatus", "whatsmyuri", "getLastError", "startSession", "endSessions", "refreshSessions",
                "killSessions", "commitTransaction", "abortTransaction", "listCommands")) {
            RULES.put(name, NONE);
        }
        collection("find", find);
        collection("count", find);
        collection("distinct", find);
        collection("listIndexes", listIndexes);
        collection("collStats", collStats);
        collection("insert", insert);
        RULES.put("update", CommandPrivileges::update);
        collection("delete", remove);
        RULES.put("findAndModify", CommandPrivileges::findAndModify);
        RULES.put("findandmodify", CommandPrivileges::findAndModify);
        collection("create", createCollection);
        collection("drop", dropCollection);
        collection("createIndexes", createIndex);
        collection("dropIndexes", dropIndex);
        collection("collMod", collMod);
        RULES.put("getMore", (db, cmd) -> List.of(new Required(Resource.collection(db, stringOr(cmd.get("collection"), "(none)")), find)));
        RULES.put("killCursors", (db, cmd) -> List.of(new Required(Resource.collection(db, stringOr(cmd.get("killCursors"), "(none)")), killCursors)));
        RULES.put("aggregate", CommandPrivileges::aggregate);
        RULES.put("explain", (db, cmd) -> cmd.isDocument("explain") && !cmd.getDocument("explain").isEmpty()
                ? required(db, cmd.getDocument("explain")) : List.of(new Required(Resource.database(db), find)));
        RULES.put("bulkWrite", CommandPrivileges::bulkWrite);
        database("listCollections", listCollections);
        database("dbStats", dbStats);
        database("profile", enableProfiler);
        database("dropDatabase", dropDatabase);
        database("createUser", createUser);
        database("dropUser", dropUser);
        database("dropAllUsersFromDatabase", dropUser);
        database("usersInfo", viewUser);
        database("createRole", createRole);
        database("updateRole", createRole, grantRole, revokeRole);
        database("dropRole", dropRole);
        database("rolesInfo", viewRole);
        database("grantPrivilegesToRole", grantRole);
        database("revokePrivilegesFromRole", revokeRole);
        RULES.put("updateUser", CommandPrivileges::updateUser);
        RULES.put("grantRolesToUser", (db, cmd) -> rolesIn(db, cmd, grantRole));
        RULES.put("revokeRolesFromUser", (db, cmd) -> rolesIn(db, cmd, revokeRole));
        // the command checks it itself: without listDatabases on the cluster a user lists the databases it has privileges in
        RULES.put("listDatabases", (db, cmd) -> List.of());
        cluster("listShards", listShards);
        cluster("addShard", addShard);
        cluster("removeShard", removeShard);
        cluster("getParameter", getParameter);
        cluster("setParameter", setParameter);
        cluster("getCmdLineOpts", getCmdLineOpts);
        cluster("getLog", getLog);
        cluster("hostInfo", hostInfo);
        cluster("serverStatus", serverStatus);
        cluster("connPoolStats", connPoolStats);
        cluster("flushRouterConfig", flushRouterConfig);
        cluster("cleanupOrphaned", cleanupOrphaned);
        cluster("killAllSessions", killAnySession);
        cluster("killAllSessionsByPattern", killAnySession);
        cluster("currentOp", inprog);
        cluster("killOp", killop);
        cluster("configureFailPoint", internal);
        cluster("waitForFailPoint", internal);
        namedDatabase("enableSharding", enableSharding);
        namedDatabase("movePrimary", moveChunk);
        namespace("shardCollection", enableSharding);
        namespace("refineCollectionShardKey", refineCollectionShardKey);
        namespace("reshardCollection", reshardCollection);
        namespace("abortReshardCollection", reshardCollection);
        namespace("commitReshardCollection", reshardCollection);
        namespace("cleanupReshardCollection", reshardCollection);
        namespace("moveChunk", moveChunk);
        namespace("moveRange", moveChunk);
        namespace("split", splitChunk);
        namespace("mergeChunks", splitChunk);
        namespace("splitVector", splitVector);
        namespace("clearJumboFlag", moveChunk);
        namespace("getShardVersion", getShardMap);
        namespace("checkMetadataConsistency", checkMetadataConsistency);
        configCollection("balancerStart", "settings", update);
        configCollection("balancerStop", "settings", update);
        configCollection("balancerStatus", "settings", find);
        configCollection("balancerPlan", "settings", find);
        // MongoDB's balancerCollectionStatus "Access Control": enableSharding on the collection (clusterManager has it)
        namespace("balancerCollectionStatus", enableSharding);
        namespace("configureCollectionBalancing", update);
        configCollection("addShardToZone", "shards", update);
        configCollection("removeShardFromZone", "shards", update);
        configCollection("updateZoneKeyRange", "tags", update);
        configCollection("addTagRange", "tags", update);
        configCollection("removeTagRange", "tags", update);
    }

    private CommandPrivileges() {}

    /**
     * The privileges {@code command} needs on {@code db}; empty when it may run unauthenticated.
     *
     * @return empty when the table does not know the command (the caller refuses it)
     */
    public static Optional<List<Required>> lookup(String db, BsonDocument command) {
        Rule rule = command.isEmpty() ? null : RULES.get(command.getFirstKey());
        if (rule == null) {
            return command.isEmpty() || !command.getFirstKey().startsWith("_") ? Optional.empty()
                    : Optional.of(List.of(new Required(Resource.CLUSTER, internal)));
        }
        return Optional.of(rule.required(db, command));
    }

    /** True when the table knows {@code name} (cluster-internal {@code _} names included). */
    public static boolean covers(String name) {
        return name.startsWith("_") || RULES.containsKey(name);
    }

    /**
     * Checks that the table covers every command of a registry that serves clients.
     *
     * @throws IllegalStateException naming the commands it does not cover
     */
    public static void requireCovered(Set<String> names) {
        SortedSet<String> missing = new TreeSet<>();
        names.stream().filter(n -> !covers(n)).forEach(missing::add);
        if (!missing.isEmpty()) {
            throw new IllegalStateException("commands without an entry in CommandPrivileges, which authorization would refuse to "
                    + "everyone: " + missing);
        }
    }

    /** Every command name in the table, sorted (for documentation and tests). */
    public static SortedSet<String> names() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(RULES.keySet()));
    }

    private static List<Required> required(String db, BsonDocument command) {
        return lookup(db, command).orElse(List.of(new Required(Resource.CLUSTER, internal)));
    }

    private static void collection(String name, ActionType... actions) {
        RULES.put(name, (db, cmd) -> each(Resource.collection(db, stringOr(cmd.get(name), "(none)")), actions));
    }

    private static void database(String name, ActionType... actions) {
        RULES.put(name, (db, cmd) -> each(Resource.database(db), actions));
    }

    private static void cluster(String name, ActionType... actions) {
        RULES.put(name, (db, cmd) -> each(Resource.CLUSTER, actions));
    }

    /** An admin command whose value names a database ({@code enableSharding: "shop"}). */
    private static void namedDatabase(String name, ActionType action) {
        RULES.put(name, (db, cmd) -> each(Resource.database(nonEmpty(stringOr(cmd.get(name), db))), action));
    }

    /** An admin command whose value names a collection ({@code shardCollection: "shop.orders"}). */
    private static void namespace(String name, ActionType action) {
        RULES.put(name, (db, cmd) -> each(namespaceResource(stringOr(cmd.get(name), "(none)")), action));
    }

    private static void configCollection(String name, String collection, ActionType action) {
        RULES.put(name, (db, cmd) -> each(Resource.collection("config", collection), action));
    }

    private static List<Required> each(Resource resource, ActionType... actions) {
        List<Required> required = new ArrayList<>(actions.length);
        for (ActionType action : actions) {
            required.add(new Required(resource, action));
        }
        return required;
    }

    /** {@code db.collection} as a collection resource, or the database when there is no dot. */
    private static Resource namespaceResource(String namespace) {
        int dot = namespace.indexOf('.');
        if (dot <= 0 || dot == namespace.length() - 1) {
            return Resource.database(nonEmpty(namespace));
        }
        return Resource.collection(namespace.substring(0, dot), namespace.substring(dot + 1));
    }

    private static String nonEmpty(String name) {
        return name.isEmpty() ? "(none)" : name;
    }

    private static String stringOr(@Nullable BsonValue value, String otherwise) {
        return value != null && value.isString() && !value.asString().getValue().isEmpty() ? value.asString().getValue() : otherwise;
    }

    /** {@code update}: update on the collection, and insert too when a statement upserts. */
    private static List<Required> update(String db, BsonDocument command) {
        Resource target = Resource.collection(db, stringOr(command.get(command.getFirstKey()), "(none)"));
        boolean upsert = command.isArray("updates") && command.getArray("updates").stream()
                .anyMatch(s -> s.isDocument() && s.asDocument().isBoolean("upsert") && s.asDocument().getBoolean("upsert").getValue());
        return upsert ? each(target, update, insert) : each(target, update);
    }

    /** {@code findAndModify}: find, and remove or update (insert too with {@code upsert}). */
    private static List<Required> findAndModify(String db, BsonDocument command) {
        Resource target = Resource.collection(db, stringOr(command.get(command.getFirstKey()), "(none)"));
        if (command.isBoolean("remove") && command.getBoolean("remove").getValue()) {
            return each(target, find, remove);
        }
        boolean upsert = command.isBoolean("upsert") && command.getBoolean("upsert").getValue();
        return upsert ? each(target, find, update, insert) : each(target, find, update);
    }

    /**
     * {@code aggregate}: find on the collection (on the database for {@code aggregate: 1}), and insert and remove on
     * the collection an {@code $out} or {@code $merge} writes; a database-level {@code $shardedDataDistribution}
     * instead needs action {@code shardedDataDistribution} on the cluster (MongoDB's stage "Access Control": role
     * {@code clusterMonitor}), since it reads no database's collection. A database-level {@code $currentOp} with
     * {@code allUsers: true} needs {@code inprog} on the cluster (MongoDB's stage "Access Control"); without it, it
     * lists the caller's own operations only, which needs no privilege.
     */
    private static List<Required> aggregate(String db, BsonDocument command) {
        List<Required> required = new ArrayList<>();
        BsonValue source = command.get("aggregate");
        if ((source == null || !source.isString()) && firstStageIs(command, "$shardedDataDistribution")) {
            required.add(new Required(Resource.CLUSTER, shardedDataDistribution));
            return required;
        }
        if ((source == null || !source.isString()) && firstStageIs(command, "$currentOp")) {
            BsonValue options = command.getArray("pipeline").get(0).asDocument().get("$currentOp");
            BsonValue allUsers = options != null && options.isDocument() ? options.asDocument().get("allUsers") : null;
            if (allUsers != null && allUsers.isBoolean() && allUsers.asBoolean().getValue()) {
                required.add(new Required(Resource.CLUSTER, inprog));
            }
            return required;
        }
        required.add(new Required(source != null && source.isString() ? Resource.collection(db, stringOr(source, "(none)"))
                : Resource.database(db), find));
        if (command.isArray("pipeline")) {
            for (BsonValue stage : command.getArray("pipeline")) {
                if (stage.isDocument() && !stage.asDocument().isEmpty()) {
                    String name = stage.asDocument().getFirstKey();
                    if (name.equals("$out") || name.equals("$merge")) {
                        Resource output = outputOf(db, stage.asDocument().get(name));
                        required.add(new Required(output, insert));
                        required.add(new Required(output, remove));
                        if (name.equals("$merge")) {
                            required.add(new Required(output, update));
                        }
                    }
                }
            }
        }
        return required;
    }

    private static boolean firstStageIs(BsonDocument command, String stage) {
        return command.isArray("pipeline") && !command.getArray("pipeline").isEmpty() && command.getArray("pipeline").get(0).isDocument()
                && command.getArray("pipeline").get(0).asDocument().containsKey(stage);
    }

    /** The collection {@code $out: "c"}, {@code $out: {db, coll}}, {@code $merge: "c"} or {@code $merge: {into}} writes. */
    private static Resource outputOf(String db, @Nullable BsonValue spec) {
        if (spec != null && spec.isString()) {
            return Resource.collection(db, stringOr(spec, "(none)"));
        }
        BsonDocument target = spec != null && spec.isDocument() ? spec.asDocument() : new BsonDocument();
        if (target.containsKey("into")) {
            return outputOf(db, target.get("into"));
        }
        return Resource.collection(stringOr(target.get("db"), db), stringOr(target.get("coll"), "(none)"));
    }

    /** {@code bulkWrite} (on admin): insert, update or remove on each namespace of {@code nsInfo} its operations use. */
    private static List<Required> bulkWrite(String db, BsonDocument command) {
        List<Required> required = new ArrayList<>();
        List<Resource> namespaces = new ArrayList<>();
        if (command.isArray("nsInfo")) {
            command.getArray("nsInfo").forEach(ns -> namespaces.add(namespaceResource(ns.isDocument() ? stringOr(ns.asDocument().get("ns"), "") : "")));
        }
        if (command.isArray("ops")) {
            for (BsonValue op : command.getArray("ops")) {
                if (!op.isDocument() || op.asDocument().isEmpty()) {
                    continue;
                }
                String kind = op.asDocument().getFirstKey();
                BsonValue index = op.asDocument().get(kind);
                if (index == null || !index.isNumber() || index.asNumber().intValue() < 0 || index.asNumber().intValue() >= namespaces.size()) {
                    continue; // the command itself refuses a bad index
                }
                Resource target = namespaces.get(index.asNumber().intValue());
                switch (kind) {
                    case "insert" -> required.add(new Required(target, insert));
                    case "delete" -> required.add(new Required(target, remove));
                    default -> {
                        required.add(new Required(target, update));
                        if (op.asDocument().isBoolean("upsert") && op.asDocument().getBoolean("upsert").getValue()) {
                            required.add(new Required(target, insert));
                        }
                    }
                }
            }
        }
        return required;
    }

    /**
     * {@code updateUser}: changePassword for {@code pwd}, changeCustomData for {@code customData}, and grantRole and
     * revokeRole on each role's database for {@code roles}.
     */
    private static List<Required> updateUser(String db, BsonDocument command) {
        List<Required> required = new ArrayList<>();
        if (command.containsKey("pwd")) {
            required.add(new Required(Resource.database(db), changePassword));
        }
        if (command.containsKey("customData")) {
            required.add(new Required(Resource.database(db), changeCustomData));
        }
        if (command.containsKey("roles")) {
            required.addAll(rolesIn(db, command, grantRole));
            required.addAll(rolesIn(db, command, revokeRole));
        }
        if (required.isEmpty()) {
            required.add(new Required(Resource.database(db), changeCustomData));
        }
        return required;
    }

    /** {@code action} on the database of each role in {@code roles} (a bare name is a role of {@code db}). */
    private static List<Required> rolesIn(String db, BsonDocument command, ActionType action) {
        List<Required> required = new ArrayList<>();
        required.add(new Required(Resource.database(db), action));
        if (command.isArray("roles")) {
            for (BsonValue role : command.getArray("roles")) {
                String roleDb = role.isDocument() ? stringOr(role.asDocument().get("db"), db) : db;
                required.add(new Required(Resource.database(roleDb), action));
            }
        }
        return required;
    }
}
