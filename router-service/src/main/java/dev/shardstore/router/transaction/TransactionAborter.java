package dev.shardstore.router.transaction;

/** Aborts a router's transaction on every participant, after a statement of it failed (the router's implicit abort). */
@FunctionalInterface
public interface TransactionAborter {
    /** Sends {@code abortTransaction} to each participant of {@code txn}, whatever they answer, and marks it aborted. */
    void abortQuietly(RouterTransaction txn);
}
