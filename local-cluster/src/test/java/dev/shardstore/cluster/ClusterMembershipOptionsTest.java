package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.cluster.testing.FakeRepo;
import dev.shardstore.transport.membership.ClusterKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cluster up --cluster-key --bind-ip}: the key file is generated once into the cluster home with mode 0600 and
 * reused; every service's command line names the bind addresses (127.0.0.1 by default) and, with the key, its file;
 * bind addresses the launcher itself could not reach are refused.
 */
class ClusterMembershipOptionsTest {
    @TempDir
    Path dir;

    @Test
    void theKeyFileIsWrittenOnceReadableByTheOwnerOnlyAndThenReused() throws Exception {
        ClusterHome home = new ClusterHome(dir.resolve("home"));

        Path file = home.ensureClusterKey();
        String key = Files.readString(file);

        assertThat(file).isEqualTo(home.clusterKeyFile());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(ClusterKey.read(file)).isNotNull();
        assertThat(home.ensureClusterKey()).isEqualTo(file);
        assertThat(Files.readString(file)).as("reused, not replaced").isEqualTo(key);
    }

    @Test
    void everyServiceListensOnLoopbackByDefaultAndWithoutAKey() throws Exception {
        ClusterOptions options = ClusterOptions.defaults(FakeRepo.create(dir.resolve("repo"))).withHome(dir.resolve("home"));

        for (Component service : options.topology().services()) {
            assertThat(commandOf(options, service)).as(service.name()).contains("--shardstore.net.bind-ip=127.0.0.1")
                    .noneMatch(arg -> arg.startsWith(Commands.CLUSTER_KEY_FILE));
        }
    }

    @Test
    void withTheKeyEveryServiceNamesItsFileAndListensWhereAsked() throws Exception {
        ClusterOptions options = ClusterOptions.defaults(FakeRepo.create(dir.resolve("repo"))).withHome(dir.resolve("home"))
                .withClusterKey(true).withBindIp(List.of("127.0.0.1", "10.1.2.3"));
        Path keyFile = new ClusterHome(options.home()).clusterKeyFile();

        for (Component service : options.topology().services()) {
            assertThat(commandOf(options, service)).as(service.name())
                    .contains("--shardstore.net.bind-ip=127.0.0.1,10.1.2.3", Commands.CLUSTER_KEY_FILE + keyFile);
        }
    }

    @Test
    void bindAddressesTheLauncherCannotReachAreRefused() throws Exception {
        ClusterOptions options = ClusterOptions.defaults(FakeRepo.create(dir.resolve("repo")));

        assertThatThrownBy(() -> options.withBindIp(List.of("10.1.2.3"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("127.0.0.1");
        assertThatThrownBy(() -> options.withBindIp(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(options.withBindIp(List.of("0.0.0.0")).bindIp()).containsExactly("0.0.0.0");
    }

    private static List<String> commandOf(ClusterOptions options, Component service) {
        return new Commands(options, new ClusterHome(options.home()), options.topology()).commandFor(service);
    }
}
