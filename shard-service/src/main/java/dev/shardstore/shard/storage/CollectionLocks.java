package dev.shardstore.shard.storage;

import dev.shardstore.contracts.namespace.Namespace;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;

/**
 * In-process collection locks in MongoDB's two strengths: reads and writes of documents hold a
 * namespace in shared mode (MongoDB's IS/IX), {@code drop} holds it exclusively (X), so a drop waits
 * for running operations and operations that start after it see the collection gone, never a
 * half-dropped table. Locks are striped by namespace: unrelated namespaces rarely share a stripe,
 * and when they do an exclusive holder only delays the other briefly. Held for one command, never
 * between getMores.
 */
@Component
public class CollectionLocks {
    private static final int STRIPES = 64;

    private final ReadWriteLock[] stripes = new ReadWriteLock[STRIPES];

    public CollectionLocks() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantReadWriteLock();
        }
    }

    /** Runs {@code action} holding {@code namespace} in shared mode. */
    public <T> T shared(Namespace namespace, Supplier<T> action) {
        return holding(stripe(namespace).readLock(), action);
    }

    /** Runs {@code action} holding {@code namespace} exclusively. */
    public <T> T exclusive(Namespace namespace, Supplier<T> action) {
        return holding(stripe(namespace).writeLock(), action);
    }

    private static <T> T holding(Lock lock, Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    private ReadWriteLock stripe(Namespace namespace) {
        return stripes[Math.floorMod(namespace.full().hashCode(), STRIPES)];
    }
}
