package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopologyTest {

    @Test
    void defaultPortsAndDatabases() {
        Topology t = Topology.plan(3, 3, 0);

        assertThat(t.components()).extracting(Component::name).containsExactly(
                "postgres", "kafka", "config", "shard1", "shard2", "shard3", "router1", "router2", "router3",
                "balancer", "resharding", "session");
        assertThat(t.components()).extracting(Component::port).containsExactly(
                25432, 29092, 8081, 8101, 8102, 8103, 8080, 8090, 8070, 8082, 8083, 8084);
        assertThat(t.databases()).containsExactly("config", "shard1", "shard2", "shard3", "resharding", "sessions");
        assertThat(t.component("balancer").database()).isEmpty();
        assertThat(t.component("resharding").database()).hasValue("resharding");
        assertThat(t.router(1).database()).isEqualTo(Optional.empty());
        assertThat(t.router(2).url()).isEqualTo("http://localhost:8090");
        assertThat(t.withRole(Role.ROUTER)).extracting(Component::connectionString)
                .containsExactly("mongodb://localhost:27017", "mongodb://localhost:27018", "mongodb://localhost:27019");
        assertThat(t.components()).filteredOn(c -> c.role() != Role.ROUTER).allSatisfy(c -> assertThat(c.wirePort()).isEmpty());
        assertThat(t.withRole(Role.SHARD)).extracting(Component::name).containsExactly("shard1", "shard2", "shard3");
        assertThat(t.services()).hasSize(10);
    }

    @Test
    void theConsoleComesLastOn8085PlusTheOffsetWhenPlanned() {
        Topology t = Topology.plan(1, 1, 1000, true);

        assertThat(t.components()).extracting(Component::name).endsWith("session", "console");
        assertThat(t.component("console").port()).isEqualTo(9085);
        assertThat(t.component("console").role().module()).hasValue("console-service");
        assertThat(t.component("console").database()).isEmpty();
        assertThat(t.hasConsole()).isTrue();
        assertThat(Topology.plan(1, 1, 1000).hasConsole()).isFalse();
    }

    @Test
    void anOffsetShiftsEveryPort() {
        Topology t = Topology.plan(1, 1, 1000);

        assertThat(t.components()).extracting(Component::port).containsExactly(26432, 30092, 9081, 9101, 9080, 9082, 9083, 9084);
        assertThat(t.router(1).wirePort()).hasValue(28017);
    }

    @Test
    void everyPortOfEveryAllowedPlanStaysBelowTheEphemeralRange() {
        for (int offset : new int[] {Topology.MIN_PORT_OFFSET, 0, Topology.MAX_PORT_OFFSET}) {
            assertThat(Topology.plan(Topology.MAX_SHARDS, Topology.MAX_ROUTERS, offset).components())
                    .allSatisfy(c -> {
                        assertThat(c.port()).as(c.name()).isBetween(1024, 32_767);
                        c.wirePort().ifPresent(port -> assertThat(port).as(c.name() + " wire").isBetween(1024, 32_767));
                    });
        }
    }

    @Test
    void invalidPlansAndNamesAreExplained() {
        assertThatThrownBy(() -> Topology.plan(0, 1, 0)).hasMessageContaining("--shards must be 1..99");
        assertThatThrownBy(() -> Topology.plan(1, 10, 0)).hasMessageContaining("--routers must be 1..9");
        assertThatThrownBy(() -> Topology.plan(1, 1, 7000)).hasMessageContaining("--port-offset");
        assertThatThrownBy(() -> Topology.plan(1, 1, Topology.MAX_PORT_OFFSET + 1)).hasMessageContaining("ephemeral");
        assertThatThrownBy(() -> Topology.plan(1, 1, Topology.MIN_PORT_OFFSET - 1)).hasMessageContaining("--port-offset");
        assertThatThrownBy(() -> Topology.plan(2, 1, 0).component("shard3"))
                .hasMessageContaining("no component 'shard3'")
                .hasMessageContaining("shard1, shard2");
        assertThatThrownBy(() -> Topology.plan(2, 1, 0).router(2)).hasMessageContaining("router index must be 1..1");
    }
}
