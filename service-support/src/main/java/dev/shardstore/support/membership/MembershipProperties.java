package dev.shardstore.support.membership;

import dev.shardstore.transport.membership.ClusterKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code shardstore.security.*}, the cluster side: MongoDB's {@code security.keyFile}.
 *
 * @param clusterKeyFile the cluster key's file ({@link ClusterKey#read}); null (default) for a cluster without a key,
 *                       where every caller of the internal endpoints is taken as a member, as before
 */
@ConfigurationProperties("shardstore.security")
public record MembershipProperties(@Nullable Path clusterKeyFile) {
    /**
     * The key in {@link #clusterKeyFile}, or null without one.
     *
     * @throws UncheckedIOException     when the file cannot be read (the service does not start)
     * @throws IllegalArgumentException when it holds no key
     */
    public @Nullable ClusterKey clusterKey() {
        if (clusterKeyFile == null) {
            return null;
        }
        try {
            return ClusterKey.read(clusterKeyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the cluster key file " + clusterKeyFile, e);
        }
    }
}
