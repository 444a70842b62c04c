package dev.shardstore.transport.membership;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The challenge–response a command-port connection starts with when the cluster has a {@link ClusterKey}, two
 * round trips on {@code admin}, once per connection (the connection's later commands carry nothing):
 *
 * <pre>
 * → {_authenticateMember: 1, nonce: BinData(16 client bytes)}
 * ← {ok: 1, nonce: BinData(the client's 16 bytes + 16 server bytes)}
 * → {_authenticateMember: 1, nonce: BinData(32), proof: BinData(HMAC(key, "client proof", nonce))}
 * ← {ok: 1, proof: BinData(HMAC(key, "server proof", nonce))}
 * </pre>
 *
 * Both sides prove they hold the key without sending it, over a nonce neither chose alone (so no answer can be
 * replayed), the shape of SCRAM's exchange (RFC 5802 section 5) with the cluster key for the password. A wrong proof,
 * or any other command before the exchange completes, is answered Unauthorized (13) and runs nothing.
 */
public final class MemberHandshake {
    /** The handshake's command name. */
    public static final String COMMAND = "_authenticateMember";
    /** The database the handshake runs on. */
    public static final String DB = "admin";
    private static final int NONCE_BYTES = 16;
    private static final String CLIENT_PROOF = "shardstore client proof v1";
    private static final String SERVER_PROOF = "shardstore server proof v1";
    private static final SecureRandom RANDOM = new SecureRandom();

    private MemberHandshake() {}

    /** One request and its reply on the connection being authenticated. */
    @FunctionalInterface
    public interface Exchange {
        BsonDocument roundTrip(BsonDocument request) throws IOException;
    }

    /**
     * Proves membership to the peer over {@code exchange} and checks the peer's proof in turn.
     *
     * @throws CommandException Unauthorized (13) when the peer refuses the proof, answers without a valid proof of its
     *                          own, or does not take the handshake (a peer without the key)
     * @throws IOException      when the exchange fails
     */
    public static void authenticate(ClusterKey key, Exchange exchange) throws IOException {
        byte[] clientNonce = random(NONCE_BYTES);
        BsonDocument first = checked(exchange.roundTrip(request().append("nonce", new BsonBinary(clientNonce))), "nonce");
        byte[] nonce = first.getBinary("nonce").getData();
        if (nonce.length != 2 * NONCE_BYTES || !Arrays.equals(nonce, 0, NONCE_BYTES, clientNonce, 0, NONCE_BYTES)) {
            throw refused("the peer's nonce does not extend ours");
        }
        BsonDocument second = checked(exchange.roundTrip(request().append("nonce", new BsonBinary(nonce))
                .append("proof", new BsonBinary(key.mac(CLIENT_PROOF, nonce)))), "proof");
        if (!key.verifies(second.getBinary("proof").getData(), SERVER_PROOF, nonce)) {
            throw refused("the peer's proof does not match our cluster key");
        }
    }

    private static BsonDocument request() {
        return new BsonDocument(COMMAND, new BsonInt32(1));
    }

    private static BsonDocument checked(BsonDocument reply, String field) {
        BsonValue ok = reply.get("ok");
        if (ok == null || !ok.isNumber() || ok.asNumber().doubleValue() != 1) {
            throw refused("the peer refused: " + reply.getString("errmsg", new BsonString("no reason given")).getValue());
        }
        if (!reply.isBinary(field)) {
            throw refused("the peer's reply has no " + field);
        }
        return reply;
    }

    private static CommandException refused(String why) {
        return new CommandException(ErrorCode.Unauthorized, "cluster membership authentication failed: " + why);
    }

    private static byte[] random(int bytes) {
        byte[] nonce = new byte[bytes];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /**
     * The server side of one connection's handshake: not thread-safe, one per connection (whose commands arrive one at
     * a time).
     */
    public static final class Server {
        private final ClusterKey key;
        private byte @Nullable [] nonce;
        private boolean member;

        public Server(ClusterKey key) {
            this.key = Objects.requireNonNull(key, "key");
        }

        /** Whether the connection has proved membership. */
        public boolean member() {
            return member;
        }

        /**
         * The reply to a command that arrives before the connection is a member: the handshake's next step, or the
         * refusal of anything else.
         *
         * @param command the command without {@code $db}
         * @throws CommandException Unauthorized (13) for another command, a step out of order or a wrong proof (the
         *                          handshake starts over)
         */
        public BsonDocument answer(String db, BsonDocument command) {
            if (command.isEmpty() || !command.getFirstKey().equals(COMMAND) || !db.equals(DB)) {
                throw new CommandException(ErrorCode.Unauthorized, "command " + (command.isEmpty() ? "{}" : command.getFirstKey())
                        + " requires authentication as a member of the cluster");
            }
            byte[] expected = nonce;
            nonce = null;
            if (!command.isBinary("nonce")) {
                throw refused("the request has no nonce");
            }
            byte[] sent = command.getBinary("nonce").getData();
            if (!command.containsKey("proof")) {
                if (sent.length != NONCE_BYTES) {
                    throw refused("the client's nonce has " + sent.length + " bytes, not " + NONCE_BYTES);
                }
                byte[] combined = Arrays.copyOf(sent, 2 * NONCE_BYTES);
                System.arraycopy(random(NONCE_BYTES), 0, combined, NONCE_BYTES, NONCE_BYTES);
                nonce = combined;
                return new BsonDocument("ok", new BsonInt32(1)).append("nonce", new BsonBinary(combined));
            }
            if (expected == null || !Arrays.equals(expected, sent) || !command.isBinary("proof")
                    || !key.verifies(command.getBinary("proof").getData(), CLIENT_PROOF, expected)) {
                throw refused("the proof does not match");
            }
            member = true;
            return new BsonDocument("ok", new BsonInt32(1)).append("proof", new BsonBinary(key.mac(SERVER_PROOF, expected)));
        }
    }
}
