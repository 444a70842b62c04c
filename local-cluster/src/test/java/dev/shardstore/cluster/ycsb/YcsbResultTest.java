package dev.shardstore.cluster.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YcsbResultTest {
    @TempDir
    Path dir;

    @Test
    void readsThroughputPercentilesAndErrorsPerOperationFromYcsbsJsonArrayExport() throws Exception {
        Path export = dir.resolve("run.json");
        Files.writeString(export, """
                [{"metric":"OVERALL","measurement":"RunTime(ms)","value":1000},
                 {"metric":"OVERALL","measurement":"Throughput(ops/sec)","value":2500.5},
                 {"metric":"CLEANUP","measurement":"Operations","value":8},
                 {"metric":"READ","measurement":"Operations","value":1200},
                 {"metric":"READ","measurement":"50thPercentileLatency(us)","value":410},
                 {"metric":"READ","measurement":"95thPercentileLatency(us)","value":900},
                 {"metric":"READ","measurement":"99thPercentileLatency(us)","value":1500},
                 {"metric":"READ","measurement":"Return=OK","value":1190},
                 {"metric":"READ","measurement":"Return=NOT_FOUND","value":7},
                 {"metric":"READ","measurement":"Return=ERROR","value":3},
                 {"metric":"UPDATE","measurement":"Operations","value":1300},
                 {"metric":"UPDATE","measurement":"50thPercentileLatency(us)","value":800},
                 {"metric":"UPDATE","measurement":"Return=OK","value":1300}]
                """);

        YcsbResult result = YcsbResult.read(export);

        assertThat(result.throughput()).isEqualTo(2500.5);
        assertThat(result.operations()).containsOnlyKeys("READ", "UPDATE");
        assertThat(result.operations().get("READ")).isEqualTo(new YcsbResult.Operation(1200, 3, 410, 900, 1500));
        assertThat(result.operations().get("UPDATE").errors()).isZero();
        assertThat(result.operations().get("UPDATE").p99Us()).isNaN();
    }

    @Test
    void aRunWhoseReadsAllFailedReadsAsErrorsNotAsAParseFailure() throws Exception {
        Path export = dir.resolve("failed.json");
        Files.writeString(export, """
                [{"metric":"OVERALL","measurement":"Throughput(ops/sec)","value":9000.0},
                 {"metric":"READ","measurement":"Operations","value":0},
                 {"metric":"READ","measurement":"AverageLatency(us)","value":"NaN"},
                 {"metric":"READ","measurement":"50thPercentileLatency(us)","value":0},
                 {"metric":"READ","measurement":"Return=ERROR","value":400},
                 {"metric":"READ-FAILED","measurement":"Operations","value":400},
                 {"metric":"READ-FAILED","measurement":"AverageLatency(us)","value":4167.5}]
                """);

        assertThat(YcsbResult.read(export).operations().get("READ")).isEqualTo(new YcsbResult.Operation(0, 400, 0, Double.NaN, Double.NaN));
    }

    @Test
    void workloadsCarryYcsbsMixesAndRefuseUnknownNames() {
        assertThat(YcsbWorkload.parse("a").properties()).containsEntry("readproportion", "0.5").containsEntry("updateproportion", "0.5")
                .containsEntry("workload", "site.ycsb.workloads.CoreWorkload");
        assertThat(YcsbWorkload.parse("E").properties()).containsEntry("scanproportion", "0.95").containsEntry("maxscanlength", "100");
        assertThatThrownBy(() -> YcsbWorkload.parse("d")).hasMessageContaining("--workload must be one of a, b, c, e, f");
    }
}
