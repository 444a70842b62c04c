package dev.shardstore.support.testing;

import dev.shardstore.transport.membership.ClusterKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * A new random cluster key in a temporary key file (deleted when the JVM exits), for a service test that runs with
 * {@code shardstore.security.cluster-key-file}: {@link #file} for the property, {@link #key} for the test's member
 * clients.
 *
 * @param text the key's text
 * @param file the key file holding it
 */
public record TestClusterKey(String text, Path file) {
    /** Writes a new key into a new temporary file whose name starts with {@code prefix}. */
    public static TestClusterKey create(String prefix) {
        String text = ClusterKey.generate(new SecureRandom());
        try {
            Path file = Files.createTempFile(prefix, ".key");
            file.toFile().deleteOnExit();
            return new TestClusterKey(text, Files.writeString(file, text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The key, as a member holds it. */
    public ClusterKey key() {
        return ClusterKey.of(text);
    }
}
