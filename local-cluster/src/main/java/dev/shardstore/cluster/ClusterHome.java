package dev.shardstore.cluster;

import dev.shardstore.transport.membership.ClusterKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Properties;
import org.springframework.util.FileSystemUtils;

/**
 * The layout of a cluster's state directory (by default {@code .cluster/} at the repository root):
 * {@code cluster.json} (topology and processes), {@code logs/<component>.log}, {@code postgres/}
 * (PostgreSQL's data, kept across {@code down}/{@code up}), {@code kafka/} (the broker's temporary
 * files), {@code run/<component>.ready} (written by the PostgreSQL and Kafka holders once ready) and, once a cluster
 * has started with membership authentication, {@code cluster.key} (the cluster key, mode 0600, kept across restarts),
 * and with {@code --auth} {@code admin-password} and {@code console-credentials.properties} (mode 0600 both).
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

    /** A new password for a user the launcher creates: 24 random bytes in base64url (32 characters). */
    public static String randomPassword() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * {@code console-credentials.properties}: {@code shardstore.console.username} and {@code shardstore.console.password}
     * of the console's user (role {@code clusterMonitor} and {@code clusterManager}) in a cluster started with
     * {@code --auth}, readable by its owner only (mode 0600). The console imports the file
     * ({@code spring.config.import}), so that its password is on no command line, in no process list and in no
     * {@code cluster.json}.
     */
    public Path consoleCredentialsFile() {
        return dir.resolve("console-credentials.properties");
    }

    /**
     * The console's credentials file, written for user {@code user} with a new {@link #randomPassword()} (mode 0600 from
     * its creation) when it does not exist yet; an existing one is reused as it is, since the catalog's console user has
     * its password.
     *
     * @throws UncheckedIOException when it cannot be written
     */
    public Path ensureConsoleCredentials(String user) {
        Path file = consoleCredentialsFile();
        try {
            Files.createDirectories(dir);
            Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                    "# the operator's console's user in this cluster (./cluster up --auth); keep it private\n"
                            + CONSOLE_USERNAME + "=" + user + "\n" + CONSOLE_PASSWORD + "=" + randomPassword() + "\n");
        } catch (FileAlreadyExistsException e) {
            // reused: the console user was created with this password
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the console's credentials " + file, e);
        }
        return file;
    }

    /** The console's password from {@link #consoleCredentialsFile()}; empty when the file does not exist. */
    public Optional<String> consolePassword() {
        Path file = consoleCredentialsFile();
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties properties = new Properties();
        try (var in = Files.newBufferedReader(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return Optional.ofNullable(properties.getProperty(CONSOLE_PASSWORD));
    }

    private static final String CONSOLE_USERNAME = "shardstore.console.username";
    private static final String CONSOLE_PASSWORD = "shardstore.console.password";

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
