package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cluster.json} across the launcher's versions: the console's choice is recorded, and an older file without it still loads. */
class StateStoreTest {
    @TempDir
    Path dir;

    @Test
    void aStateRecordedBeforeTheConsoleLoadsAsAClusterWithoutOne() throws IOException {
        ClusterHome home = new ClusterHome(dir);
        Files.writeString(home.stateFile(), "{\"shards\": 2, \"routers\": 1, \"portOffset\": 0, \"processes\": {}}");

        ClusterState state = new StateStore(home).load().orElseThrow();

        assertThat(state.console()).isFalse();
        assertThat(state.topology().hasConsole()).isFalse();
    }

    @Test
    void theConsoleChoiceIsRecorded() {
        ClusterHome home = new ClusterHome(dir);
        StateStore store = new StateStore(home);
        store.save(new ClusterState(1, 1, 0, true, Map.of()));

        assertThat(store.load().orElseThrow().topology().component("console").port()).isEqualTo(8085);
    }
}
