package dev.shardstore.cluster.crudspec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Opt-in measurement: MongoDB's driver CRUD specification tests (unified format) against the router's wire
 * protocol, on a 2-shard, 1-router cluster (ports offset by 1600), once with the tests' collections unsharded and
 * once with each sharded on {@code {_id: "hashed"}} ({@link SpecSuite}). Skipped unless {@code -Dcrudspec.dir=DIR}
 * names a directory of the spec's {@code source/crud/tests/unified/*.json} files (they are not part of this
 * repository; see docs/crud-spec.md); {@code -Dcrudspec.only=TEXT} keeps the files whose name contains TEXT. Prints a
 * table (mode, file, test, verdict, reason) and the totals, and writes them to {@code target/crudspec-report.txt}.
 * It fails only when no test was applicable, i.e. the directory held no usable spec file.
 */
class CrudSpecIT {

    @Test
    void runsTheCrudSpecificationTests() throws IOException {
        int applicable = SpecSuite.run("crudspec", "directory of mongodb/specifications source/crud/tests/unified/*.json",
                1, 1600, ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS, Map.of());
        assertThat(applicable).as("applicable CRUD spec tests found in " + System.getProperty("crudspec.dir")).isPositive();
    }
}
