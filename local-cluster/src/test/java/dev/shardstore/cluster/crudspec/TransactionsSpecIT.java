package dev.shardstore.cluster.crudspec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Opt-in measurement: MongoDB's driver transactions specification tests (unified format: mongodb/specifications
 * {@code source/transactions/tests/unified/*.json}, and {@code source/transactions-convenient-api/tests/unified/}
 * copied next to them as {@code transactions-convenient-api--<name>.json}) against the routers' wire protocol, on a
 * 2-shard, 2-router cluster (ports offset by 3250; two routers so that the tests' {@code useMultipleMongoses} clients
 * exercise mongos pinning) with the test commands on ({@code configureFailPoint}), through {@link SpecSuite}: once
 * with the collections unsharded, once sharded on {@code {_id: "hashed"}}, so that a transaction spans both shards.
 * Skipped unless {@code -Dtxnspec.dir=DIR}; {@code -Dtxnspec.only=TEXT} and {@code -Dtxnspec.modes=hashed} narrow
 * it. Writes {@code target/txnspec-report.txt}; fails only when no test was applicable. See docs/transactions-spec.md.
 */
class TransactionsSpecIT {

    @Test
    void runsTheTransactionsSpecificationTests() throws IOException {
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add("-Dshardstore.test-commands.enabled=true");
        int applicable = SpecSuite.run("txnspec", "directory of mongodb/specifications source/transactions/tests/unified/*.json",
                2, 3250, jvm);
        assertThat(applicable).as("applicable transactions spec tests found in " + System.getProperty("txnspec.dir")).isPositive();
    }
}
