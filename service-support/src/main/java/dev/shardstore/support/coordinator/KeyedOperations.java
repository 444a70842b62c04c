package dev.shardstore.support.coordinator;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The operations running in this process, at most one per key (a namespace, a database, a resharding operation's
 * namespace): MongoDB's {@code ShardingDDLCoordinatorService} "run or join" (mongo/src/mongo/db/s/README.md "DDL
 * operations", "Serializing conflicting operations"). A second request for the same operation with equal arguments joins
 * the running one and gets its outcome; any other is ConflictingOperationInProgress (117). The persisted coordinator
 * documents serialize operations across restarts; this class serializes those running now. Thread-safe.
 */
public final class KeyedOperations {
    private final ConcurrentMap<String, Running> running = new ConcurrentHashMap<>();

    /** An operation running in this process: what it is, with which arguments, and its outcome. */
    private record Running(String operation, Object request, CompletableFuture<Object> outcome) {}

    /**
     * Runs {@code body} as the operation of {@code key} in this process, or joins the same operation already running.
     *
     * @param request the operation's arguments; an equal request joins, another is refused
     * @return what {@code body} returned (to a joiner too)
     * @throws CommandException ConflictingOperationInProgress (117) when another operation, or the same one with other
     *                          arguments, runs on {@code key}; what {@code body} threw (to a joiner too)
     */
    @SuppressWarnings("unchecked")
    public <T> T run(String key, String operation, Object request, Supplier<T> body) {
        Running mine = new Running(operation, request, new CompletableFuture<>());
        Running other = running.putIfAbsent(key, mine);
        if (other != null) {
            if (!other.operation().equals(operation) || !other.request().equals(request)) {
                throw new CommandException(ErrorCode.ConflictingOperationInProgress, operation + " of " + key + " (" + request
                        + ") is refused while " + other.operation() + " of " + key + " (" + other.request() + ") is running");
            }
            return (T) join(other.outcome());
        }
        try {
            T result = body.get();
            mine.outcome().complete(result);
            return result;
        } catch (RuntimeException e) {
            mine.outcome().completeExceptionally(e);
            throw e;
        } finally {
            running.remove(key, mine);
        }
    }

    /** Whether an operation of {@code key} runs in this process now. */
    public boolean isRunning(String key) {
        return running.containsKey(key);
    }

    private static Object join(CompletableFuture<Object> outcome) {
        try {
            return outcome.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
