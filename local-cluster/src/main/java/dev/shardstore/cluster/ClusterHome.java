package dev.shardstore.cluster;

import dev.shardstore.transport.membership.ClusterKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Optional;
import org.springframework.util.FileSystemUtils;

/**
 * The layout of a cluster's state directory (by default {@code .cluster/} at the repository root):
 * {@code cluster.json} (topology and processes), {@code logs/<component>.log}, {@code postgres/}
 * (PostgreSQL's data, kept across {@code down}/{@code up}), {@code kafka/} (the broker's temporary
 * files), {@code run/<component>.ready} (written by the PostgreSQL and Kafka holders once ready) and, once a cluster
 * has started with membership authentication, {@code cluster.key} (the cluster key, mode 0600, kept across restarts).
 */
public record ClusterHome(Path dir) {

    public ClusterHome {
        dir = dir.toAbsolutePath().normalize();
    }

    /** {@code cluster.json}: the topology and the processes started for it. */
    public Path stateFile() {
        return dir.resolve("cluster.json");
    }

    /** The directory of the components' logs, {@code logs/}. */
    public Path logs() {
        return dir.resolve("logs");
    }

    /** Where a component's stdout and stderr go, e.g. {@code logs/shard2.log}. */
    public Path log(String component) {
        return logs().resolve(component + ".log");
    }

    /** Written by the PostgreSQL or Kafka holder once its server is ready. */
    public Path readyFile(String component) {
        return dir.resolve("run").resolve(component + ".ready");
    }

    /** PostgreSQL's data directory, kept across restarts. */
    public Path postgresData() {
        return dir.resolve("postgres");
    }

    /** The Kafka holder's {@code java.io.tmpdir}, emptied before each start. */
    public Path kafkaTmp() {
        return dir.resolve("kafka");
    }

    /**
     * Deletes the whole state directory: PostgreSQL's data, logs, the recorded topology. Only for a stopped cluster
     * ({@code ./cluster down --purge}); a missing directory is fine.
     *
     * @throws UncheckedIOException when something cannot be deleted
     */
    public void purge() {
        deleteTree(dir);
    }

    /**
     * Deletes PostgreSQL's data and Kafka's directory — a throwaway cluster's gigabyte or more — and keeps the logs
     * and the recorded topology. Only for a stopped cluster; missing directories are fine.
     *
     * @throws UncheckedIOException when something cannot be deleted
     */
    public void deleteData() {
        deleteTree(postgresData());
        deleteTree(kafkaTmp());
    }

    private static void deleteTree(Path root) {
        try {
            FileSystemUtils.deleteRecursively(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }

    /**
     * {@code admin-password}: the password of user {@code admin} (role {@code root}) of a cluster started with
     * {@code --auth}, readable by its owner only (mode 0600); the other verbs authenticate with it.
     */
    public Path adminPasswordFile() {
        return dir.resolve("admin-password");
    }

    /** The admin password of a cluster started with {@code --auth}; empty for one without authentication. */
    public Optional<String> adminPassword() {
        try {
            return Files.exists(adminPasswordFile()) ? Optional.of(Files.readString(adminPasswordFile()).strip()) : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + adminPasswordFile(), e);
        }
    }

    /** Writes the admin password, mode 0600 from its creation (never readable by others, not even briefly). */
    public void writeAdminPassword(String password) {
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(adminPasswordFile());
            Files.createFile(adminPasswordFile(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(adminPasswordFile(), password + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + adminPasswordFile(), e);
        }
    }

    /** The cluster key's file (MongoDB's keyFile): {@code cluster.key}. */
    public Path clusterKeyFile() {
        return dir.resolve("cluster.key");
    }

    /**
     * The cluster key's file, written with a new random key ({@link ClusterKey#generate}) readable by this user only
     * (mode 0600, created so, never widened) when it does not exist yet; an existing one is reused as it is.
     *
     * @throws UncheckedIOException when it cannot be written
     */
    public Path ensureClusterKey() {
        Path file = clusterKeyFile();
        try {
            Files.createDirectories(dir);
            Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                    ClusterKey.generate(new SecureRandom()));
        } catch (FileAlreadyExistsException e) {
            // reused: the services of an earlier start hold the same key
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the cluster key file " + file, e);
        }
        return file;
    }

    /** Creates the directories a start needs. */
    public void createDirectories() {
        try {
            Files.createDirectories(dir.resolve("logs"));
            Files.createDirectories(dir.resolve("run"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cluster state directory " + dir, e);
        }
    }
}
