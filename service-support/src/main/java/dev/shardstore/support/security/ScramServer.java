package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The server side of one SCRAM conversation (RFC 5802 section 5; RFC 7677 for SHA-256), as MongoDB's
 * {@code saslStart} / {@code saslContinue} carry it: {@link #first} answers the client-first message with the
 * server-first (nonce, salt, iterations), {@link #last} checks the client's proof against the stored key and answers
 * the server signature. Channel binding is not offered ({@code n,,} or {@code y,,}; {@code p=} is refused).
 *
 * <p>Every failure — unknown user, wrong proof, a malformed or out-of-order message — is AuthenticationFailed (18)
 * "Authentication failed.", MongoDB's wording, saying nothing of which part was wrong. Not thread-safe: one
 * conversation belongs to one connection, whose requests come one at a time.
 */
public final class ScramServer {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String FAILED = "Authentication failed.";

    private final ScramMechanism mechanism;
    private final Function<String, Optional<ScramCredentials>> credentials;
    private final Supplier<String> serverNonces;
    private @Nullable String user;
    private @Nullable ScramCredentials stored;
    private @Nullable String clientFirstBare;
    private @Nullable String serverFirst;
    private @Nullable String gs2Header;
    private @Nullable String nonce;
    private boolean done;

    /**
     * A conversation that finds a user's credentials with {@code credentials} (empty for an unknown user).
     *
     * @param serverNonces the server's part of each nonce (random printable characters, no comma); tests fix it
     */
    public ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredentials>> credentials, Supplier<String> serverNonces) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.serverNonces = serverNonces;
    }

    /** A conversation with 24 random bytes (base64) as the server's nonce part. */
    public ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredentials>> credentials) {
        this(mechanism, credentials, ScramServer::randomNonce);
    }

    /** The mechanism of this conversation. */
    public ScramMechanism mechanism() {
        return mechanism;
    }

    /** The user the client named, once {@link #first} read it (also when no such user exists: the audit log names it). */
    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** True once the client's proof was verified ({@link #last}). */
    public boolean done() {
        return done;
    }

    /**
     * Answers the client-first message {@code n,,n=<user>,r=<client nonce>}.
     *
     * @return the server-first message {@code r=<nonce>,s=<salt>,i=<iterations>}
     * @throws CommandException AuthenticationFailed (18)
     */
    public String first(String clientFirst) {
        if (clientFirstBare != null) {
            throw failed();
        }
        String header;
        if (clientFirst.startsWith("n,,") || clientFirst.startsWith("y,,")) {
            header = clientFirst.substring(0, 3);
        } else {
            throw failed(); // channel binding (p=) or an authorization identity (a=) is not offered
        }
        String bare = clientFirst.substring(3);
        String[] fields = bare.split(",", -1);
        if (fields.length < 2 || !fields[0].startsWith("n=") || !fields[1].startsWith("r=") || fields[1].length() < 3) {
            throw failed();
        }
        String name = decodeName(fields[0].substring(2));
        user = name;
        ScramCredentials found = credentials.apply(name).orElseThrow(ScramServer::failed);
        stored = found;
        gs2Header = header;
        clientFirstBare = bare;
        nonce = fields[1].substring(2) + serverNonces.get();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(found.salt()) + ",i=" + found.iterationCount();
        return serverFirst;
    }

    /**
     * Checks the client-final message {@code c=<gs2 header, base64>,r=<nonce>,p=<proof>}.
     *
     * @return the server-final message {@code v=<server signature>}
     * @throws CommandException AuthenticationFailed (18)
     */
    public String last(String clientFinal) {
        ScramCredentials stored = this.stored;
        String gs2Header = this.gs2Header;
        if (stored == null || gs2Header == null || done) {
            throw failed();
        }
        int proofAt = clientFinal.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw failed();
        }
        String withoutProof = clientFinal.substring(0, proofAt);
        String[] fields = withoutProof.split(",", -1);
        String binding = "c=" + Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8));
        if (fields.length < 2 || !fields[0].equals(binding) || !fields[1].equals("r=" + nonce)) {
            throw failed();
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(clientFinal.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            throw failed();
        }
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] storedKey = stored.storedKey();
        byte[] clientSignature = mechanism.hmac(storedKey, authMessage);
        if (proof.length != clientSignature.length) {
            throw failed();
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        if (!MessageDigest.isEqual(mechanism.hash(clientKey), storedKey)) {
            throw failed();
        }
        done = true;
        return "v=" + Base64.getEncoder().encodeToString(mechanism.hmac(stored.serverKey(), authMessage));
    }

    /** A SCRAM {@code saslname}: {@code =2C} is a comma, {@code =3D} an equals sign, any other {@code =} is malformed. */
    private static String decodeName(String saslName) {
        StringBuilder name = new StringBuilder(saslName.length());
        for (int i = 0; i < saslName.length(); i++) {
            char c = saslName.charAt(i);
            if (c != '=') {
                name.append(c);
            } else if (saslName.startsWith("=2C", i)) {
                name.append(',');
                i += 2;
            } else if (saslName.startsWith("=3D", i)) {
                name.append('=');
                i += 2;
            } else {
                throw failed();
            }
        }
        return name.toString();
    }

    private static String randomNonce() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static CommandException failed() {
        return new CommandException(ErrorCode.AuthenticationFailed, FAILED);
    }
}
