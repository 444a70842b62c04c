package dev.shardstore.cluster.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Marks an end-to-end class that runs on the one cluster such classes share, instead of starting its own: its
 * {@code @BeforeAll} method takes a {@link MigrationCluster} parameter (2 shards, 2 routers, test commands on, DDL
 * coordinators retried every second; see {@link MigrationCluster#start}). The first class that asks starts it; it stops
 * when the whole run ends (JUnit closes the root store's {@link AutoCloseable} values).
 *
 * <p>Why: a cluster's start is about 30 s of this 2-core machine's time and was most of a small class's wall time
 * (MigrationIT 36 s with 6 s of tests). A class may share only if it leaves the cluster as it found it: a database of its
 * own, every process running when it ends (a class that kills one starts it again), no fail point left on, no
 * cluster-wide setting changed. Fault tests that need a small cluster of their own keep one.
 *
 * <p>The sharing classes run after every other class ({@code @Order} with {@code ClassOrderer$OrderAnnotation}, set
 * for failsafe in local-cluster's pom), so the shared cluster never idles beside another class's cluster.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(OnSharedCluster.Resolver.class)
@Order(OnSharedCluster.ORDER)
@interface OnSharedCluster {
    /** After the classes without an {@code @Order} ({@link Order#DEFAULT}). */
    int ORDER = Order.DEFAULT + 1;

    /** Resolves a {@link MigrationCluster} parameter to the shared cluster, starting it on first use. */
    final class Resolver implements ParameterResolver {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(OnSharedCluster.class);
        /** MigrationIT's offset when it had a cluster of its own. */
        private static final int PORT_OFFSET = 2500;

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == MigrationCluster.class;
        }

        @Override
        public MigrationCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return context.getRoot().getStore(NAMESPACE).computeIfAbsent(MigrationCluster.class, k -> {
                try {
                    // an unfinished DDL coordinator (a movePrimary or drop whose config service was killed) resumes after
                    // 1 s instead of 5: MovePrimaryIT and DropCollectionIT wait for that after each restart
                    return MigrationCluster.start("shared-it", PORT_OFFSET, 2, List.of("-Dshardstore.sharding.ddl-retry-interval=1s"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, MigrationCluster.class);
        }
    }
}
