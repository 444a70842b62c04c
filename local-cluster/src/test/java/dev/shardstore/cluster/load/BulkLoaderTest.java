package dev.shardstore.cluster.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.testing.FakeService;
import dev.shardstore.contracts.namespace.Namespace;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BulkLoaderTest {
    @TempDir
    Path dir;

    @Test
    void loadsInBatchesAndCountsWriteErrors() throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 1; i <= 2_500; i++) {
            lines.append("{\"i\": ").append(i).append(i == 1_234 ? ", \"fail\": true" : "").append("}\n");
        }
        Path file = Files.writeString(dir.resolve("docs.jsonl"), lines);
        List<Long> progress = new ArrayList<>();
        try (FakeService.Running router = FakeService.start(0, List.of())) {
            BulkLoader loader = new BulkLoader(new RouterClient(router.url(), Duration.ofSeconds(10)), 1_000, 2);

            LoadReport report = loader.load(file, Namespace.parse("test.docs"), new LoadListener() {
                @Override
                public void started(InputFile f) {
                    assertThat(f.size()).isEqualTo(lines.length());
                }

                @Override
                public void progress(long bytesRead, long documentsSent) {
                    progress.add(documentsSent);
                }

                @Override
                public void finished() {}
            });

            assertThat(report.documents()).isEqualTo(2_500);
            assertThat(report.inserted()).isEqualTo(2_499);
            assertThat(report.failed()).isEqualTo(1);
            assertThat(report.errorSamples()).containsExactly("document 1234: E11000 duplicate key error (code 11000)");
            assertThat(report.documentsPerSecond()).isPositive();
            assertThat(router.count("test.docs")).isEqualTo(2_499);
            assertThat(router.insertCommands()).isEqualTo(3);
            assertThat(progress).containsExactly(1_000L, 2_000L, 2_500L);
        }
    }

    @Test
    void anUnreachableRouterStopsTheLoadWithAClearMessage() throws IOException {
        Path file = Files.writeString(dir.resolve("docs.json"), "[{\"a\": 1}]");
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        BulkLoader loader = new BulkLoader(new RouterClient("http://localhost:" + closedPort, Duration.ofSeconds(5)), 10, 1);

        assertThatThrownBy(() -> loader.load(file, Namespace.parse("test.docs"), LoadListener.NONE))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("stopped after sending 1 documents")
                .hasMessageContaining("router at http://localhost:" + closedPort + " is unreachable");
    }
}
