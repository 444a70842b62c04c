package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;

/**
 * One mechanism's stored SCRAM credentials (RFC 5802 section 3), as {@code admin.system.users} keeps them under
 * {@code credentials.<mechanism>}: {@code {iterationCount, salt, storedKey, serverKey}}, the byte strings in base64.
 * They let the server verify a proof and prove itself, and never reveal the password.
 *
 * @param mechanism      the mechanism
 * @param iterationCount Hi()'s iteration count, at least 4096 (RFC 5802's minimum)
 * @param salt           the salt
 * @param storedKey      H(HMAC(SaltedPassword, "Client Key"))
 * @param serverKey      HMAC(SaltedPassword, "Server Key")
 */
public record ScramCredentials(ScramMechanism mechanism, int iterationCount, byte[] salt, byte[] storedKey, byte[] serverKey) {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int MIN_ITERATIONS = 4096;

    public ScramCredentials {
        Objects.requireNonNull(mechanism, "mechanism");
        if (iterationCount < MIN_ITERATIONS || salt.length == 0 || storedKey.length == 0 || serverKey.length == 0) {
            throw new IllegalArgumentException("SCRAM credentials need a salt, both keys and at least " + MIN_ITERATIONS + " iterations");
        }
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    /** New credentials for {@code user}'s {@code password}, with a new random salt and the mechanism's default iterations. */
    public static ScramCredentials create(ScramMechanism mechanism, String user, String password) {
        byte[] salt = new byte[mechanism.saltLength()];
        RANDOM.nextBytes(salt);
        return derive(mechanism, mechanism.prepare(user, password), salt, mechanism.defaultIterations());
    }

    /** The credentials of an already prepared password ({@link ScramMechanism#prepare}) with this salt and count. */
    public static ScramCredentials derive(ScramMechanism mechanism, String preparedPassword, byte[] salt, int iterationCount) {
        byte[] salted = mechanism.saltedPassword(preparedPassword, salt, iterationCount);
        byte[] clientKey = mechanism.hmac(salted, "Client Key");
        return new ScramCredentials(mechanism, iterationCount, salt, mechanism.hash(clientKey), mechanism.hmac(salted, "Server Key"));
    }

    /** {@code {iterationCount, salt, storedKey, serverKey}}. */
    public BsonDocument toBson() {
        Base64.Encoder b64 = Base64.getEncoder();
        return new BsonDocument("iterationCount", new BsonInt32(iterationCount))
                .append("salt", new BsonString(b64.encodeToString(salt)))
                .append("storedKey", new BsonString(b64.encodeToString(storedKey)))
                .append("serverKey", new BsonString(b64.encodeToString(serverKey)));
    }

    /**
     * Reads {@code credentials.<mechanism>} of a user document.
     *
     * @throws CommandException InternalError (1) for a stored document of another shape (the catalog is damaged)
     */
    public static ScramCredentials parse(ScramMechanism mechanism, BsonDocument document) {
        try {
            Base64.Decoder b64 = Base64.getDecoder();
            return new ScramCredentials(mechanism, document.getNumber("iterationCount").intValue(),
                    b64.decode(document.getString("salt").getValue()), b64.decode(document.getString("storedKey").getValue()),
                    b64.decode(document.getString("serverKey").getValue()));
        } catch (RuntimeException e) {
            throw new CommandException(ErrorCode.InternalError, "stored " + mechanism.mechanismName() + " credentials do not parse: " + e.getMessage());
        }
    }
}
