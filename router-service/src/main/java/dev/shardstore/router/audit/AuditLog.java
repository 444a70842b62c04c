package dev.shardstore.router.audit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.UserName;
import jakarta.annotation.PreDestroy;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The router's audit log (docs/architecture.md "The audit log"; MongoDB Enterprise's auditing, which Community lacks):
 * every authentication attempt on either front end, and every user and role change, DDL command and sharding
 * administration command that reaches {@link dev.shardstore.router.command.ClientCommands}, with its outcome, as an
 * {@link AuditEvent}. The latest {@code shardstore.audit.recent} are kept for {@code /actuator/audit}; with
 * {@code shardstore.audit.path} each is also appended to that file as one relaxed Extended JSON line, through a Logback
 * file appender of its own (the service's other logs do not go there, and the audit events go nowhere else).
 *
 * <p>Reads, writes of documents and the other commands are not audited (MongoDB audits them only on request, with
 * {@code auditAuthorizationSuccess}). Passwords never reach an event: a command's {@code pwd} is left out of its
 * {@code param}. Thread-safe.
 */
@Component
public class AuditLog {
    /** The audited commands and their {@code atype}: MongoDB's where it names the event otherwise than the command. */
    private static final Map<String, String> ATYPES = atypes();
    /** Fields of a command that say nothing about what it did, or must not be kept (a password). */
    private static final Set<String> LEFT_OUT = Set.of("pwd", "lsid", "txnNumber", "autocommit", "startTransaction", "writeConcern",
            "maxTimeMS", "comment");
    private static final AtomicLong APPENDERS = new AtomicLong();

    private final Clock clock;
    private final int capacity;
    private final Deque<AuditEvent> recent = new ArrayDeque<>();
    private final @Nullable FileAppender<ILoggingEvent> appender;
    private final ch.qos.logback.classic.@Nullable Logger file;

    /** The service's log, its events stamped by the system clock. */
    @Autowired
    public AuditLog(AuditProperties properties) {
        this(properties, Clock.systemUTC());
    }

    /**
     * @param clock stamps the events ({@code ts})
     * @throws IllegalStateException when the file cannot be opened
     */
    public AuditLog(AuditProperties properties, Clock clock) {
        this.clock = clock;
        this.capacity = properties.recent();
        Path path = properties.path();
        if (path == null) {
            this.appender = null;
            this.file = null;
        } else {
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            PatternLayoutEncoder encoder = new PatternLayoutEncoder();
            encoder.setContext(context);
            encoder.setPattern("%msg%n");
            encoder.start();
            FileAppender<ILoggingEvent> fileAppender = new FileAppender<>();
            fileAppender.setContext(context);
            fileAppender.setName("shardstore-audit-" + APPENDERS.incrementAndGet());
            fileAppender.setFile(path.toString());
            fileAppender.setAppend(true);
            fileAppender.setEncoder(encoder);
            fileAppender.start();
            if (!fileAppender.isStarted()) {
                throw new IllegalStateException("cannot open the audit log " + path + " (shardstore.audit.path)");
            }
            ch.qos.logback.classic.Logger logger = context.getLogger("shardstore.audit." + fileAppender.getName());
            logger.setAdditive(false);
            logger.setLevel(Level.INFO);
            logger.addAppender(fileAppender);
            this.appender = fileAppender;
            this.file = logger;
        }
    }

    private static Map<String, String> atypes() {
        Map<String, String> atypes = new java.util.HashMap<>();
        for (String same : List.of("createUser", "updateUser", "dropUser", "dropAllUsersFromDatabase", "grantRolesToUser",
                "revokeRolesFromUser", "createRole", "updateRole", "dropRole", "dropAllRolesFromDatabase", "grantPrivilegesToRole",
                "revokePrivilegesFromRole", "grantRolesToRole", "revokeRolesFromRole", "dropDatabase", "renameCollection", "collMod",
                "enableSharding", "shardCollection", "reshardCollection", "abortReshardCollection", "refineCollectionShardKey",
                "addShard", "removeShard", "movePrimary", "moveChunk", "moveRange", "split", "mergeChunks", "clearJumboFlag",
                "balancerStart", "balancerStop", "configureCollectionBalancing", "addShardToZone", "removeShardFromZone",
                "updateZoneKeyRange", "setParameter", "killOp", "killSessions", "killAllSessions")) {
            atypes.put(same, same);
        }
        atypes.put("create", "createCollection");
        atypes.put("drop", "dropCollection");
        atypes.put("createIndexes", "createIndex");
        atypes.put("dropIndexes", "dropIndex");
        return Map.copyOf(atypes);
    }

    /**
     * Records an authentication attempt.
     *
     * @param user      who it was for; null when the attempt did not say (an unreadable header, an unknown token)
     * @param mechanism {@code SCRAM-SHA-256}, {@code SCRAM-SHA-1}, {@code HTTP-Basic} or {@code HTTP-Bearer}
     * @param result    0 when it succeeded, else its error code (18)
     */
    public void authentication(@Nullable InetSocketAddress remote, @Nullable UserName user, String mechanism, int result) {
        BsonDocument param = user == null ? new BsonDocument()
                : new BsonDocument("user", new BsonString(user.user())).append("db", new BsonString(user.db()));
        append(new AuditEvent("authenticate", clock.instant(), remote, result == 0 && user != null ? List.of(user) : List.of(), List.of(),
                param.append("mechanism", new BsonString(mechanism)), result));
    }

    /**
     * Records {@code command} on {@code db} run by {@code principal}, when it is an audited one (the class comment); other
     * commands are passed over.
     *
     * @param result 0 when it succeeded, else its error code
     */
    public void command(@Nullable InetSocketAddress remote, Principal principal, String db, BsonDocument command, int result) {
        String atype = command.isEmpty() ? null : ATYPES.get(command.getFirstKey());
        if (atype == null) {
            return;
        }
        BsonDocument param = new BsonDocument("db", new BsonString(db));
        command.forEach((name, value) -> {
            if (!name.startsWith("$") && !LEFT_OUT.contains(name)) {
                param.append(name, value);
            }
        });
        append(new AuditEvent(atype, clock.instant(), remote, principal.users(), principal.roles(), param, result));
    }

    private void append(AuditEvent event) {
        synchronized (recent) {
            recent.addLast(event);
            if (recent.size() > capacity) {
                recent.removeFirst();
            }
        }
        if (file != null) {
            file.info(ExtendedJson.toJson(event.toBson()));
        }
    }

    /** The latest events, oldest first. */
    public List<AuditEvent> recent() {
        synchronized (recent) {
            return new ArrayList<>(recent);
        }
    }

    /** Closes the file. */
    @PreDestroy
    public void close() {
        if (appender != null && file != null) {
            file.detachAppender(appender);
            appender.stop();
        }
    }
}
