package dev.shardstore.shard.storage;

import java.sql.Connection;
import org.springframework.jdbc.datasource.ConnectionHolder;

/**
 * What one multi-document transaction holds on this shard between its statements (MongoDB's {@code TxnResources}):
 * its PostgreSQL connection with the open transaction ({@link TransactionConnections}) and its unit of work, which
 * collects the written documents to report once it commits. Made by {@link WriteUnitOfWork#beginTransaction}; its
 * statements run in it through {@link WriteUnitOfWork#inTransaction}; it ends with
 * {@link WriteUnitOfWork#commitTransaction} or {@link WriteUnitOfWork#abortTransaction}, after which it refuses
 * further use. Used by one statement at a time: the session checkout serializes them.
 */
public final class TransactionResources {
    final Connection connection;
    final ConnectionHolder holder;
    final WriteUnitOfWork.Unit unit;
    private boolean ended;

    TransactionResources(Connection connection, WriteUnitOfWork.Unit unit) {
        this.connection = connection;
        this.holder = new PinnedConnectionHolder(connection);
        this.unit = unit;
    }

    /** Whether the transaction has committed or rolled back. */
    public boolean ended() {
        return ended;
    }

    /** @throws IllegalStateException once the transaction has ended */
    void checkOpen() {
        if (ended) {
            throw new IllegalStateException("the transaction has already committed or rolled back");
        }
    }

    void end() {
        ended = true;
    }

    /**
     * The transaction's connection as Spring's JDBC code finds it while a statement runs: bound to the statement's
     * thread for the datasource, marked as an active transaction, so that {@code JdbcClient} runs on it and a
     * savepoint ({@code PROPAGATION_NESTED}) is a savepoint of this transaction.
     */
    private static final class PinnedConnectionHolder extends ConnectionHolder {
        PinnedConnectionHolder(Connection connection) {
            super(connection);
            setTransactionActive(true);
        }
    }
}
