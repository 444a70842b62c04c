package dev.shardstore.shard.versioning;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Per-collection critical sections (MongoDB's {@code ShardingMigrationCriticalSection}): while a namespace is in
 * one, versioned commands on it wait before their version check, so nothing is written under routing
 * information that is about to change. {@code shardCollection} holds one on the primary from
 * {@code _shardsvrPrepareShardCollection} (the emptiness check and split points) until the config service's
 * {@code _shardsvrRefreshCollection} after its commit: a router still believing the collection unsharded cannot
 * write a document the new chunks place on another shard (it would be an orphan, invisible). A section left
 * behind by a config service that died is released after {@code timeout}; the waiting commands then refresh
 * their filtering metadata before checking (the entry is marked stale).
 *
 * <p>Thread-safe.
 */
@Component
public class CriticalSections {
    private final Map<String, CompletableFuture<Void>> sections = new ConcurrentHashMap<>();
    private final Consumer<String> onRelease;

    @Autowired
    public CriticalSections(CollectionShardingState state) {
        this(state::markStale);
    }

    /** @param onRelease called with the namespace when a section ends (by exit or timeout) */
    CriticalSections(Consumer<String> onRelease) {
        this.onRelease = onRelease;
    }

    /**
     * Enters {@code namespace}'s critical section (again: extends nothing, the first entry's timeout stands).
     *
     * @param timeout when it is released if {@link #exit} never comes
     */
    public void enter(String namespace, Duration timeout) {
        sections.computeIfAbsent(namespace, ns -> {
            CompletableFuture<Void> section = new CompletableFuture<>();
            section.completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((ignored, error) -> {
                        sections.remove(ns, section);
                        onRelease.accept(ns);
                    });
            return section;
        });
    }

    /** Leaves {@code namespace}'s critical section, releasing the commands waiting on it; a no-op when not in one. */
    public void exit(String namespace) {
        CompletableFuture<Void> section = sections.get(namespace);
        if (section != null) {
            section.complete(null);
        }
    }

    /** The namespaces in a critical section, sorted (for the {@code shardingState} endpoint). */
    public List<String> held() {
        return sections.keySet().stream().sorted().toList();
    }

    /**
     * Waits until {@code namespace} is not in a critical section, at most {@code max}.
     *
     * @return false when still held after {@code max}
     */
    public boolean awaitExit(String namespace, Duration max) {
        CompletableFuture<Void> section = sections.get(namespace);
        if (section == null) {
            return true;
        }
        try {
            section.get(max.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }
}
