package dev.shardstore.cluster.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints each test class's wall time, from before its first {@code @BeforeAll} (the cluster start) to after its last
 * {@code @AfterAll} (the cluster stop), as {@code [wall time] ShardedCollectionsIT: 212.4 s}: the suite must stay under
 * 20 minutes on 2 cores, and the end-to-end classes are where it goes. Registered for the failsafe run through JUnit's
 * extension auto-detection (local-cluster/pom.xml).
 */
public final class ClassWallTime implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ClassWallTime.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put("start", System.nanoTime());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Long start = context.getStore(NAMESPACE).get("start", Long.class);
        if (start != null) {
            System.out.printf("[wall time] %s: %.1f s%n", context.getRequiredTestClass().getSimpleName(), (System.nanoTime() - start) / 1e9);
        }
    }
}
