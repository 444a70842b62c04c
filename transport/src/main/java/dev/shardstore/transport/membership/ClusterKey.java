package dev.shardstore.transport.membership;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster's shared secret, read from its key file (MongoDB's {@code security.keyFile}): whoever holds it is a
 * member of the cluster and may run internal commands. The file holds 6 to 1024 characters of the base64 alphabet;
 * whitespace is ignored, as MongoDB reads a keyFile. The secret never leaves the process: peers prove they hold it by
 * HMAC-SHA256 ({@code javax.crypto}) over a purpose label and fresh values ({@link MemberToken},
 * {@link MemberHandshake}). Immutable and thread-safe.
 */
public final class ClusterKey {
    /** The fewest and most characters MongoDB accepts in a keyFile. */
    static final int MIN_LENGTH = 6;
    static final int MAX_LENGTH = 1024;
    private static final String ALGORITHM = "HmacSHA256";
    private static final int GENERATED_BYTES = 48;

    private final SecretKeySpec secret;

    private ClusterKey(String encoded) {
        if (encoded.length() < MIN_LENGTH || encoded.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a cluster key has " + MIN_LENGTH + " to " + MAX_LENGTH + " characters, not "
                    + encoded.length());
        }
        if (!encoded.chars().allMatch(c -> Character.isLetterOrDigit(c) && c < 128 || c == '+' || c == '/' || c == '=')) {
            throw new IllegalArgumentException("a cluster key holds only characters of the base64 alphabet");
        }
        this.secret = new SecretKeySpec(encoded.getBytes(StandardCharsets.US_ASCII), ALGORITHM);
    }

    /**
     * The key whose text is {@code text} (whitespace ignored).
     *
     * @throws IllegalArgumentException for fewer than 6 or more than 1024 characters, or one outside base64's alphabet
     */
    public static ClusterKey of(String text) {
        return new ClusterKey(text.replaceAll("\\s", ""));
    }

    /**
     * The key in {@code file}.
     *
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException when its content is not a key ({@link #of})
     */
    public static ClusterKey read(Path file) throws IOException {
        try {
            return of(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the cluster key file " + file + " is not a key: " + e.getMessage(), e);
        }
    }

    /** A new random key's text: 64 base64 characters (48 bytes from {@code random}), for a new key file. */
    public static String generate(SecureRandom random) {
        byte[] bytes = new byte[GENERATED_BYTES];
        random.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * HMAC-SHA256 under the key of {@code purpose} (a label that keeps one use's proofs from passing for another's),
     * a zero byte, then {@code parts} in order.
     */
    byte[] mac(String purpose, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(secret);
            mac.update(purpose.getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) 0);
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every JDK", e);
        }
    }

    /** Whether {@code proof} is {@link #mac}{@code (purpose, parts)}, compared in constant time. */
    boolean verifies(byte[] proof, String purpose, byte[]... parts) {
        return MessageDigest.isEqual(mac(purpose, parts), proof);
    }

    /** Never the secret. */
    @Override
    public String toString() {
        return "ClusterKey[redacted]";
    }
}
