package dev.shardstore.support.parameter;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The server parameters of one service process (MongoDB manual, "MongoDB Server Parameters"), under MongoDB's names
 * where MongoDB has the parameter: their catalog ({@link #CATALOG}, the one place they are defined) and their current
 * values. Values are set at start-up from {@code shardstore.set-parameter.<name>=<value>} ({@code ./cluster up
 * --set-parameter NAME=VALUE}) and at run time by {@code setParameter}; {@code getParameter} reads them. Thread-safe:
 * readers take the current value at the start of each operation.
 *
 * <p>Command shapes ({@link #get}, {@link #set}), as mongod's:
 * <ul>
 *   <li>{@code {getParameter: 1, <name>: 1, ...}} → {@code {<name>: <value>, ..., ok: 1}}; {@code {getParameter: "*"}}
 *       every parameter; {@code {getParameter: {showDetails: true}, ...}} each as {@code {value, settableAtRuntime,
 *       settableAtStartup}}. InvalidOptions (72) "no option found to get" when none of the names is known.</li>
 *   <li>{@code {setParameter: 1, <name>: <value>}} → {@code {was: <previous value>, ok: 1}}. InvalidOptions (72)
 *       "attempted to set unrecognized parameter [<name>]" for an unknown name or none at all; BadValue (2) for a value
 *       of the wrong type or out of bounds ({@link ServerParameter#parse}).</li>
 * </ul>
 */
public final class ServerParameters {
    /** Spring property prefix of the start-up values: {@code shardstore.set-parameter.<name>=<value>}. */
    public static final String PROPERTY_PREFIX = "shardstore.set-parameter";

    /**
     * Most bytes of documents a blocking sort ({@code $sort}, a {@code find}'s sort no index provides) holds before it
     * spills or fails; MongoDB's parameter of this name and default (100 MB).
     */
    public static final ServerParameter SORT_MEMORY = ServerParameter.ofLong("internalQueryMaxBlockingSortMemoryUsageBytes",
            100L * 1024 * 1024, 1, Long.MAX_VALUE, "bytes of documents a blocking sort holds before it spills to disk (or fails"
                    + " with 292 without allowDiskUse)");
    /** Most bytes of group keys and accumulator states {@code $group} holds before it spills; MongoDB's name and default (100 MB). */
    public static final ServerParameter GROUP_MEMORY = ServerParameter.ofLong("internalDocumentSourceGroupMaxMemoryBytes",
            100L * 1024 * 1024, 1, Long.MAX_VALUE, "bytes of groups (keys and accumulator states) $group holds before it spills"
                    + " to disk (or fails with 292 without allowDiskUse)");
    /** The {@code allowDiskUse} of a command that does not say (MongoDB 6.0's parameter, default true). */
    public static final ServerParameter ALLOW_DISK_USE_BY_DEFAULT = ServerParameter.ofBoolean("allowDiskUseByDefault", true,
            "whether a blocking stage over its memory budget spills to disk when the command does not set allowDiskUse");
    /**
     * Most cursors one client may hold open on this service. MongoDB has no such parameter; the name follows its
     * {@code internalQuery...} style for limits without a public one.
     */
    public static final ServerParameter MAX_CURSORS_PER_CLIENT = ServerParameter.ofLong("internalQueryMaxOpenCursorsPerClient",
            1000, 1, Integer.MAX_VALUE, "open cursors one client (its session's lsid, else its connection) may hold on this"
                    + " service; one more is refused with OperationFailed (96)");
    /** Most cursors open on this service at once, all clients together; no MongoDB equivalent. */
    public static final ServerParameter MAX_CURSORS = ServerParameter.ofLong("internalQueryMaxOpenCursors", 10_000, 1,
            Integer.MAX_VALUE, "open cursors on this service, all clients together; one more is refused with OperationFailed (96)");

    /**
     * Most bytes all blocking stages of this service hold together before a spilling one spills early, whatever its own
     * budget; a quarter of this JVM's maximum heap by default. No MongoDB equivalent (its budgets count against the
     * machine's memory); the name follows its {@code internalQuery...} style.
     */
    public static final ServerParameter BLOCKING_STAGES_MEMORY = ServerParameter.ofLong("internalQueryMaxBlockingStagesMemoryBytes",
            Runtime.getRuntime().maxMemory() / 4, 1, Long.MAX_VALUE, "bytes all blocking sorts of this service hold together"
                    + " before one that may spill does so under its own budget (default: a quarter of the heap)");

    /**
     * How long resharding's write block may last before the recipients have caught up; past it the operation aborts with
     * ReshardingCriticalSectionTimeout. MongoDB's parameter of this name and default (5 s), read by the coordinator.
     */
    public static final ServerParameter RESHARDING_CRITICAL_SECTION_TIMEOUT = ServerParameter.ofLong("reshardingCriticalSectionTimeoutMillis",
            5_000, 0, Integer.MAX_VALUE, "milliseconds resharding may block writes while the recipients catch up before it aborts"
                    + " with ReshardingCriticalSectionTimeout (read by the resharding coordinator)");

    /**
     * Whether a two-phase commit's coordinator answers {@code coordinateCommitTransaction} once its decision is on disk,
     * delivering it to the participants afterwards, rather than once every participant applied it. MongoDB's parameter
     * of this name and default (true; mongo/src/mongo/db/s/README.md "Two-phase Commit Protocol"), read by a shard's
     * coordinator.
     */
    public static final ServerParameter COORDINATE_COMMIT_RETURN_IMMEDIATELY = ServerParameter.ofBoolean(
            "coordinateCommitTransactionReturnImmediatelyAfterPersistingDecision", true, "whether a transaction's coordinator"
                    + " answers the commit once its decision is durable and delivers it to the participants afterwards (a"
                    + " causally consistent read still sees the commit: it waits for the prepared transaction)");

    /** Every parameter, in the order {@code getParameter: "*"} lists them. */
    public static final List<ServerParameter> CATALOG = List.of(SORT_MEMORY, GROUP_MEMORY, ALLOW_DISK_USE_BY_DEFAULT,
            MAX_CURSORS_PER_CLIENT, MAX_CURSORS, BLOCKING_STAGES_MEMORY, RESHARDING_CRITICAL_SECTION_TIMEOUT,
            COORDINATE_COMMIT_RETURN_IMMEDIATELY);

    private static final Map<String, ServerParameter> BY_NAME = CATALOG.stream()
            .collect(Collectors.toMap(ServerParameter::name, Function.identity()));

    private final Map<String, BsonValue> values = new ConcurrentHashMap<>();

    /**
     * The parameters at their defaults, then at {@code startup}'s values.
     *
     * @param startup name → value as text ({@link ServerParameter#parseText})
     * @throws CommandException InvalidOptions (72) for an unknown name, BadValue (2) for a bad value: the service does
     *                          not start with a setting it would ignore
     */
    public ServerParameters(Map<String, String> startup) {
        CATALOG.forEach(p -> values.put(p.name(), p.defaultValue()));
        startup.forEach((name, text) -> {
            ServerParameter parameter = known(name);
            values.put(parameter.name(), parameter.parseText(text));
        });
    }

    /** The current value of a {@link ServerParameter.Type#LONG} parameter of {@link #CATALOG}. */
    public long longValue(ServerParameter parameter) {
        return values.get(parameter.name()).asInt64().getValue();
    }

    /** The current value of a {@link ServerParameter.Type#BOOLEAN} parameter of {@link #CATALOG}. */
    public boolean booleanValue(ServerParameter parameter) {
        return values.get(parameter.name()).asBoolean().getValue();
    }

    /**
     * Sets one parameter.
     *
     * @return the value it had
     * @throws CommandException InvalidOptions (72) for an unknown name, BadValue (2) for a bad value
     */
    public BsonValue set(String name, BsonValue value) {
        ServerParameter parameter = known(name);
        return values.put(parameter.name(), parameter.parse(value));
    }

    /**
     * Answers {@code getParameter} (shapes in the class comment).
     *
     * @param command the command document, its first field {@code getParameter}
     * @param others  further parameters the service answers itself (the router's {@code featureCompatibilityVersion}),
     *                name → value
     * @return the reply's fields without {@code ok}
     * @throws CommandException InvalidOptions (72) when none of the named parameters is known
     */
    public BsonDocument get(BsonDocument command, Map<String, BsonValue> others) {
        BsonValue selector = command.get(command.getFirstKey());
        boolean all = selector.isString() && selector.asString().getValue().equals("*");
        boolean details = selector.isDocument() && selector.asDocument().get("showDetails", BsonBoolean.FALSE).asBoolean().getValue();
        Map<String, BsonValue> known = new LinkedHashMap<>(others);
        CATALOG.forEach(p -> known.put(p.name(), values.get(p.name())));
        BsonDocument reply = new BsonDocument();
        List<String> asked = new ArrayList<>();
        for (String field : command.keySet()) {
            if (!field.equals(command.getFirstKey()) && !CommandOptions.isGeneric(field)) {
                asked.add(field);
            }
        }
        known.forEach((name, value) -> {
            if (all || asked.contains(name)) {
                reply.append(name, details ? new BsonDocument("value", value).append("settableAtRuntime", BsonBoolean.valueOf(BY_NAME.containsKey(name)))
                        .append("settableAtStartup", BsonBoolean.valueOf(BY_NAME.containsKey(name))) : value);
            }
        });
        if (reply.isEmpty()) {
            throw new CommandException(ErrorCode.InvalidOptions, "no option found to get: " + String.join(", ", asked));
        }
        return reply;
    }

    /**
     * Answers {@code setParameter} (shapes in the class comment): sets the one parameter the command names.
     *
     * @return {@code {was: <previous value>}} without {@code ok}
     * @throws CommandException InvalidOptions (72) for an unknown name, for none, or for more than one; BadValue (2) for
     *                          a bad value (nothing is set then)
     */
    public BsonDocument set(BsonDocument command) {
        List<String> named = command.keySet().stream()
                .filter(field -> !field.equals(command.getFirstKey()) && !CommandOptions.isGeneric(field)).toList();
        if (named.size() != 1) {
            throw new CommandException(ErrorCode.InvalidOptions, named.isEmpty() ? "no option found to set, use help:true to see options"
                    : "setParameter sets one parameter at a time here, was given " + named);
        }
        return new BsonDocument("was", set(named.getFirst(), command.get(named.getFirst())));
    }

    private static ServerParameter known(String name) {
        // Spring's relaxed binding may hand start-up names over lower-cased
        ServerParameter parameter = BY_NAME.containsKey(name) ? BY_NAME.get(name)
                : CATALOG.stream().filter(p -> p.name().equalsIgnoreCase(name)).findFirst().orElse(null);
        if (parameter == null) {
            throw new CommandException(ErrorCode.InvalidOptions, "attempted to set unrecognized parameter [" + name
                    + "], use help:true to see options");
        }
        return parameter;
    }
}
