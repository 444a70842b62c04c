package dev.shardstore.router.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.router.audit.AuditLog;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.ScramMechanism;
import dev.shardstore.support.security.ScramServer;
import dev.shardstore.support.security.UserName;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One client connection's authentication (MongoDB manual "SCRAM"; the drivers' "Authentication" specification):
 * {@code saslStart} / {@code saslContinue} with SCRAM-SHA-256 or SCRAM-SHA-1 on the user's authentication database,
 * {@code speculativeAuthenticate} and {@code saslSupportedMechs} in {@code hello}, {@code logout}, and the principal
 * the connection's commands run as ({@link #principal}). One conversation at a time, id 1; a new {@code saslStart}
 * replaces it. A conversation that fails answers AuthenticationFailed (18) "Authentication failed." whatever the cause.
 *
 * <p>With authorization on and no user defined, an unauthenticated connection from a loopback address runs as
 * {@link Principal#LOCALHOST_EXCEPTION} (MongoDB's localhost exception): it may create the first user.
 *
 * <p>Not thread-safe: a connection answers its requests one at a time.
 */
public final class ConnectionAuthentication {
    private static final int CONVERSATION_ID = 1;

    private final UserDirectory directory;
    private final boolean loopback;
    private final AuditLog audit;
    private final @Nullable InetSocketAddress remote;
    private Principal principal = Principal.NONE;
    private @Nullable ScramServer conversation;
    private @Nullable String conversationDb;

    /**
     * @param loopback whether the client connected from a loopback address (the localhost exception applies)
     * @param audit    records each finished conversation, success or failure
     * @param remote   the client's address, for the audit log
     */
    public ConnectionAuthentication(UserDirectory directory, boolean loopback, AuditLog audit, @Nullable InetSocketAddress remote) {
        this.directory = directory;
        this.loopback = loopback;
        this.audit = audit;
        this.remote = remote;
    }

    /** True for the commands this class answers: {@code saslStart}, {@code saslContinue}, {@code logout}. */
    public static boolean handles(String commandName) {
        return commandName.equals("saslStart") || commandName.equals("saslContinue") || commandName.equals("logout");
    }

    /**
     * Who the connection's next command runs as: its user, resolved again when users or roles changed since; the
     * localhost exception when it applies; else nobody.
     */
    public Principal principal() {
        if (!principal.users().isEmpty() && principal.generation() != directory.generation()) {
            principal = directory.principal(principal.users().getFirst());
        }
        if (principal.users().isEmpty() && loopback && directory.enforced() && !directory.anyUser()) {
            return Principal.LOCALHOST_EXCEPTION;
        }
        return principal;
    }

    /**
     * Answers {@code saslStart}, {@code saslContinue} or {@code logout} on {@code db}.
     *
     * @throws CommandException AuthenticationFailed (18); MechanismUnavailable (334) for a mechanism other than SCRAM;
     *                          ProtocolError (17) for a {@code saslContinue} without a conversation
     */
    public BsonDocument run(String db, BsonDocument command) {
        return switch (command.getFirstKey()) {
            case "saslStart" -> saslStart(db, command);
            case "saslContinue" -> saslContinue(command);
            default -> {
                principal = Principal.NONE;
                conversation = null;
                yield new BsonDocument("ok", new BsonDouble(1));
            }
        };
    }

    /**
     * {@code hello}'s {@code speculativeAuthenticate} answer ({@code {conversationId, done, payload}}), empty when the
     * exchange failed, so that the driver authenticates the ordinary way and gets the error then.
     */
    public Optional<BsonDocument> speculative(BsonDocument saslStart) {
        if (!saslStart.isString("db")) {
            return Optional.empty();
        }
        try {
            BsonDocument reply = saslStart(saslStart.getString("db").getValue(), saslStart);
            reply.remove("ok");
            return Optional.of(reply);
        } catch (CommandException e) {
            return Optional.empty();
        }
    }

    /** {@code hello}'s {@code saslSupportedMechs: "<db>.<user>"} answer: the user's mechanisms, empty for an unknown user. */
    public Optional<BsonArray> supportedMechanisms(BsonValue user) {
        if (!user.isString() || user.asString().getValue().indexOf('.') <= 0) {
            return Optional.empty();
        }
        String name = user.asString().getValue();
        int dot = name.indexOf('.');
        try {
            return directory.mechanisms(new UserName(name.substring(dot + 1), name.substring(0, dot)));
        } catch (CommandException e) {
            return Optional.empty();
        }
    }

    private BsonDocument saslStart(String db, BsonDocument command) {
        String mechanismName = command.isString("mechanism") ? command.getString("mechanism").getValue() : "";
        ScramMechanism mechanism = ScramMechanism.ofName(mechanismName).orElseThrow(() -> new CommandException(
                ErrorCode.MechanismUnavailable, "Received authentication for mechanism " + mechanismName
                        + " which is not enabled (SCRAM-SHA-256 and SCRAM-SHA-1 are)"));
        ScramServer scram = new ScramServer(mechanism, user -> directory.credentials(new UserName(user, db), mechanism));
        conversation = null;
        String serverFirst;
        try {
            serverFirst = scram.first(payload(command));
        } catch (CommandException e) { // an unknown user, a malformed first message
            audited(scram.user().map(user -> new UserName(user, db)).orElse(null), scram, e.code().code());
            throw e;
        }
        conversation = scram;
        conversationDb = db;
        return reply(false, serverFirst);
    }

    private BsonDocument saslContinue(BsonDocument command) {
        ScramServer scram = conversation;
        if (scram == null || !command.isNumber("conversationId") || command.getNumber("conversationId").intValue() != CONVERSATION_ID) {
            throw new CommandException(ErrorCode.ProtocolError, "No SASL session state found");
        }
        if (scram.done()) {
            conversation = null;
            return reply(true, "");
        }
        String serverFinal;
        String db = conversationDb == null ? "admin" : conversationDb;
        try {
            serverFinal = scram.last(payload(command));
        } catch (CommandException e) {
            conversation = null;
            audited(scram.user().map(user -> new UserName(user, db)).orElse(null), scram, e.code().code());
            throw e;
        }
        UserName user = new UserName(scram.user().orElseThrow(), db);
        principal = directory.principal(user);
        audited(user, scram, 0);
        boolean skipEmptyExchange = command.isDocument("options") && command.getDocument("options").isBoolean("skipEmptyExchange")
                && command.getDocument("options").getBoolean("skipEmptyExchange").getValue();
        if (skipEmptyExchange) {
            conversation = null;
        }
        return reply(skipEmptyExchange, serverFinal);
    }

    private void audited(@Nullable UserName user, ScramServer scram, int result) {
        audit.authentication(remote, user, scram.mechanism().mechanismName(), result);
    }

    private static String payload(BsonDocument command) {
        BsonValue payload = command.get("payload");
        if (payload != null && payload.isBinary()) {
            return new String(payload.asBinary().getData(), StandardCharsets.UTF_8);
        }
        if (payload != null && payload.isString()) {
            return payload.asString().getValue();
        }
        throw new CommandException(ErrorCode.AuthenticationFailed, "Authentication failed.");
    }

    private static BsonDocument reply(boolean done, String payload) {
        return new BsonDocument("conversationId", new BsonInt32(CONVERSATION_ID)).append("done", BsonBoolean.valueOf(done))
                .append("payload", new BsonBinary(payload.getBytes(StandardCharsets.UTF_8))).append("ok", new BsonDouble(1));
    }
}
