package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.RouterProperties;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.query.ClusterCurrentOp;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.CommandOptions;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.parameter.ServerParameters;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.engine.spill.MemoryPool;
import dev.shardstore.engine.spill.SpillDirectory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The diagnostic commands mongosh and the drivers send when they connect, answered as far as they need:
 * {@code getParameter} ({@code featureCompatibilityVersion}, which is MongoDB 8.0's, the release whose
 * commands the router implements, and the server parameters), {@code setParameter} (on the router and every shard), {@code getCmdLineOpts}, {@code getLog} (no log lines are kept), {@code hostInfo},
 * {@code connectionStatus} (the connection's users, roles and privileges), {@code killOp}; the session commands are in {@code router.session}.
 * {@code atlasVersion} is deliberately absent: like a MongoDB that is not Atlas, the router answers CommandNotFound. All
 * but {@code connectionStatus} run on {@code admin} only.
 */
@Configuration
public class DiagnosticCommands {
    /** The feature compatibility version reported: that of MongoDB 8.0 (wire version 25). */
    static final String FEATURE_COMPATIBILITY_VERSION = "8.0";
    private static final List<String> LOGS = List.of("global", "startupWarnings");

    /**
     * {@code {getParameter: 1 | "*" | {showDetails?}, <name>: 1, ...}}: {@code "*"} reports every parameter known,
     * otherwise the named ones: {@code featureCompatibilityVersion} ({@code {version: "8.0"}}) and the router's own
     * {@link ServerParameters} (shapes and errors there; InvalidOptions (72) when none of the names is known, as in
     * MongoDB, "no option found to get"). The shards' values are read with getParameter on each shard.
     */
    @Bean
    CommandHandler getParameter(ServerParameters parameters) {
        return CommandHandler.of("getParameter", (db, cmd) -> {
            Namespaces.checkAdmin(db, "getParameter");
            new CommandArgs(cmd).required(cmd, "getParameter", "getParameter");
            return Replies.ok(parameters.get(cmd, Map.of("featureCompatibilityVersion",
                    new BsonDocument("version", new BsonString(FEATURE_COMPATIBILITY_VERSION)))));
        });
    }

    /**
     * {@code {setParameter: 1, <name>: <value>}} → {@code {was: <the router's previous value>, ok: 1}}: checked and set
     * on the router ({@link ServerParameters}: InvalidOptions (72) for an unknown name, BadValue (2) for a bad value,
     * nothing sent then), then sent to every shard, as a cluster-wide setting of mongod parameters through mongos would
     * have to be done shard by shard, and to the resharding service when it sets {@code reshardingCriticalSectionTimeoutMillis}.
     * A shard that fails it fails the command with that shard's error (the shards asked before it keep the new value;
     * repeating the command is safe).
     */
    @Bean
    CommandHandler setParameter(ServerParameters parameters, PeerClient peers, ShardRegistry shards, RouterProperties properties) {
        return CommandHandler.of("setParameter", (db, cmd) -> {
            Namespaces.checkAdmin(db, "setParameter");
            BsonDocument was = parameters.set(cmd);
            BsonDocument forward = new BsonDocument();
            cmd.forEach((field, value) -> {
                if (field.equals(cmd.getFirstKey()) || !CommandOptions.isGeneric(field)) {
                    forward.append(field, value);
                }
            });
            shards.all().forEach((shard, url) -> peers.runChecked(shard, url, "admin", forward));
            if (cmd.containsKey(ServerParameters.RESHARDING_CRITICAL_SECTION_TIMEOUT.name())) {
                // the one parameter the resharding coordinator reads
                peers.runChecked("resharding", properties.reshardingUrl(), "admin", forward);
            }
            return Replies.ok(was);
        });
    }

    /**
     * The budgets of the router's merge stages (a split pipeline's {@code $group} and {@code $sort} over the shards'
     * partial results), read from the router's own parameters; spill files in {@code shardstore.spill.directory}, else
     * {@code <java.io.tmpdir>/shardstore-spill/<pid>} ({@link SpillDirectory#configured}).
     */
    @Bean
    MemoryBudgets memoryBudgets(ServerParameters parameters, @Value("${shardstore.spill.directory:}") String directory) {
        return new MemoryBudgets(() -> parameters.longValue(ServerParameters.SORT_MEMORY), () -> parameters.longValue(ServerParameters.GROUP_MEMORY),
                () -> parameters.booleanValue(ServerParameters.ALLOW_DISK_USE_BY_DEFAULT), SpillDirectory.configured(directory),
                interruption -> { }, // the router holds no merge for a test
                new MemoryPool(() -> parameters.longValue(ServerParameters.BLOCKING_STAGES_MEMORY)));

    }

    /** {@code killOp} on {@code admin}, of a router operation or, as {@code "<shard>:<opid>"}, a shard's ({@link ClusterCurrentOp}). */
    @Bean
    CommandHandler killOp(ClusterCurrentOp currentOp) {
        return CommandHandler.of("killOp", (db, cmd) -> {
            Namespaces.checkAdmin(db, "killOp");
            return currentOp.killOp(cmd);
        });
    }

    /** {@code getCmdLineOpts}: the process is a Spring Boot application, so no mongos options: {@code argv, parsed: {}}. */
    @Bean
    CommandHandler getCmdLineOpts() {
        return CommandHandler.of("getCmdLineOpts", (db, cmd) -> {
            Namespaces.checkAdmin(db, "getCmdLineOpts");
            return Replies.ok(new BsonDocument("argv", new BsonArray(List.of(new BsonString("router-service"))))
                    .append("parsed", new BsonDocument()));
        });
    }

    /**
     * {@code getLog: "*"} lists the logs ({@code names}); {@code getLog: "global" | "startupWarnings"} is
     * {@code {totalLinesWritten: 0, log: []}}: the router keeps its log in its log file, not in memory. Another name
     * is OperationFailed (96).
     */
    @Bean
    CommandHandler getLog() {
        return CommandHandler.of("getLog", (db, cmd) -> {
            Namespaces.checkAdmin(db, "getLog");
            BsonValue name = new CommandArgs(cmd).required(cmd, "getLog", "getLog");
            if (!name.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "getLog takes a log's name as a string, was " + name);
            }
            String log = name.asString().getValue();
            if (log.equals("*")) {
                return Replies.ok(new BsonDocument("names", new BsonArray(LOGS.stream().<BsonValue>map(BsonString::new).toList())));
            }
            if (!LOGS.contains(log)) {
                throw new CommandException(ErrorCode.OperationFailed, "no log named '" + log + "'; getLog: '*' lists them");
            }
            return Replies.ok(new BsonDocument("totalLinesWritten", new BsonInt32(0)).append("log", new BsonArray()));
        });
    }

    /** {@code hostInfo}: {@code system} (time, host name, cores, memory, architecture) and {@code os}. */
    @Bean
    CommandHandler hostInfo() {
        return CommandHandler.of("hostInfo", (db, cmd) -> {
            Namespaces.checkAdmin(db, "hostInfo");
            Runtime runtime = Runtime.getRuntime();
            BsonDocument system = new BsonDocument("currentTime", new BsonDateTime(System.currentTimeMillis()))
                    .append("hostname", new BsonString(hostName()))
                    .append("cpuAddrSize", new BsonInt32(64))
                    .append("memSizeMB", new BsonInt64(runtime.maxMemory() / (1024 * 1024)))
                    .append("numCores", new BsonInt32(runtime.availableProcessors()))
                    .append("cpuArch", new BsonString(System.getProperty("os.arch")));
            BsonDocument os = new BsonDocument("type", new BsonString(System.getProperty("os.name")))
                    .append("name", new BsonString(System.getProperty("os.name")))
                    .append("version", new BsonString(System.getProperty("os.version")));
            return Replies.ok(new BsonDocument("system", system).append("os", os).append("extra", new BsonDocument()));
        });
    }

    /**
     * {@code connectionStatus}: {@code authInfo} with the connection's {@code authenticatedUsers} and
     * {@code authenticatedUserRoles} (every role held, inherited ones too), and {@code authenticatedUserPrivileges}
     * with {@code showPrivileges}; empty lists for a connection that has not authenticated.
     */
    @Bean
    CommandHandler connectionStatus() {
        return CommandHandler.of("connectionStatus", (opCtx, db, cmd) -> {
            Principal principal = opCtx.caller().principal();
            boolean showPrivileges = new CommandArgs(cmd).optionalBoolean(cmd, "showPrivileges", "showPrivileges", false);
            Principal shown = principal.kind() == Principal.Kind.SYSTEM ? Principal.NONE : principal;
            return Replies.ok(new BsonDocument("authInfo", shown.authInfo(showPrivileges)));
        });
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
