package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.testing.FakeService;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ShardRegistrar} against a fake router over HTTP: add what is missing, refuse a catalog with more shards. */
class ShardRegistrarTest {
    @Test
    void addsTheMissingShardsOnceAndRefusesACatalogThatListsShardsThisStartDoesNotRun() throws Exception {
        try (FakeService.Running router = FakeService.start(0, List.of())) {
            ShardRegistrar registrar = new ShardRegistrar(new RouterClient(router.url(), Duration.ofSeconds(10)));
            assertThat(registrar.register(Topology.plan(3, 1, 0).withRole(Role.SHARD))).containsExactly("shard1", "shard2", "shard3");
            assertThat(registrar.register(Topology.plan(3, 1, 0).withRole(Role.SHARD))).isEmpty();
            assertThat(registrar.register(Topology.plan(4, 1, 0).withRole(Role.SHARD))).containsExactly("shard4");

            assertThatThrownBy(() -> registrar.register(Topology.plan(2, 1, 0).withRole(Role.SHARD)))
                    .isInstanceOf(StartupException.class)
                    .hasMessageContaining("lists shard3, shard4")
                    .hasMessageContaining("--shards 4")
                    .hasMessageContaining("./cluster down --purge");
        }
    }
}
