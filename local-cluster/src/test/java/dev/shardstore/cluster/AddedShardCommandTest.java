package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The command line of a shard added to a running cluster: the first shard's, with its own port, database and name. */
class AddedShardCommandTest {
    @Test
    void theTemplatesPortDatabaseAndNameAreReplacedItsArchiveWritingDroppedAndTheRestKept() {
        Component shard4 = Topology.plan(4, 1, 3300).component("shard4");
        List<String> template = List.of("/jdk/bin/java", "-Dshardstore.balancer.round-interval=1s", "-Xmx384m", ServiceLaunch.WRITE_ARCHIVE,
                "-XX:SharedArchiveFile=shard-service.jsa", "-jar", "shard-service.jar", "--server.port=11401", "--spring.datasource.url=jdbc:postgresql://localhost:28732/shard1",
                "--spring.datasource.username=postgres", "--shardstore.config-url=http://localhost:11381", "--shardstore.shard.name=shard1");

        assertThat(Commands.forAddedShard(template, shard4)).containsExactly("/jdk/bin/java", "-Dshardstore.balancer.round-interval=1s",
                "-Xmx384m", "-XX:SharedArchiveFile=shard-service.jsa", "-jar", "shard-service.jar", "--server.port=11404",
                "--spring.datasource.url=jdbc:postgresql://localhost:28732/shard4", "--spring.datasource.username=postgres",
                "--shardstore.config-url=http://localhost:11381", "--shardstore.shard.name=shard4");
    }

    @Test
    void theAddedShardGetsASpillDirectoryOfItsOwnBesideTheTemplates() {
        Component shard4 = Topology.plan(4, 1, 0).component("shard4");
        List<String> template = List.of("java", "-jar", "shard-service.jar", "--server.port=8101",
                "--spring.datasource.url=jdbc:postgresql://localhost:25432/shard1", "--shardstore.shard.name=shard1",
                Commands.SPILL_DIRECTORY + "/home/me/.cluster/spill/shard1");

        assertThat(Commands.forAddedShard(template, shard4)).contains(Commands.SPILL_DIRECTORY + "/home/me/.cluster/spill/shard4")
                .doesNotContain(Commands.SPILL_DIRECTORY + "/home/me/.cluster/spill/shard1");
    }

    @Test
    void aCommandThatIsNotAShardsIsRefused() {
        Component shard4 = Topology.plan(4, 1, 0).component("shard4");
        assertThatThrownBy(() -> Commands.forAddedShard(List.of("java", "-jar", "router-service.jar", "--server.port=8080"), shard4))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("--shardstore.shard.name=");
    }
}
