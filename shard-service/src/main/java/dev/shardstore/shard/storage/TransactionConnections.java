package dev.shardstore.shard.storage;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.stereotype.Component;

/**
 * The PostgreSQL connections of multi-document transactions: each open transaction holds one for its whole life,
 * across statements that arrive on different request threads, so they come from here and not from the shard's
 * statement pool (16 connections that one command holds for milliseconds; an idle transaction holding one of them for
 * up to {@code transactionLifetimeLimitSeconds} would starve the plain writes).
 *
 * <p>Bounded by {@code shardstore.shard.transactions.max-open} (default 32): a transaction that would be one more is
 * refused at once with LockTimeout (24) labelled {@code TransientTransactionError}, so the client retries it later
 * instead of queueing. Connections are kept for reuse once their transaction ends.
 *
 * <p>Every connection runs at REPEATABLE READ (PostgreSQL's snapshot isolation: the transaction reads one snapshot
 * taken at its first statement, as MongoDB's transactions read one storage snapshot) with {@code lock_timeout} of
 * 1 ms: a transaction's write never waits for a row another transaction holds, it fails with a write conflict
 * instead, as MongoDB's do (mongo/src/mongo/db/s/README.md "Transactions"). Thread-safe.
 */
@Component
public class TransactionConnections implements DisposableBean {
    private static final Logger log = LoggerFactory.getLogger(TransactionConnections.class);

    private final DataSourceProperties database;
    private final Semaphore permits;
    private final int maxOpen;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

    public TransactionConnections(DataSourceProperties database, @Value("${shardstore.shard.transactions.max-open:32}") int maxOpen) {
        if (maxOpen < 1) {
            throw new IllegalArgumentException("shardstore.shard.transactions.max-open must be at least 1, was " + maxOpen);
        }
        this.database = database;
        this.maxOpen = maxOpen;
        this.permits = new Semaphore(maxOpen);
    }

    /**
     * A connection in a fresh transaction (autocommit off), for one multi-document transaction; give it back with
     * {@link #release} once the transaction has committed or rolled back.
     *
     * @throws CommandException LockTimeout (24) with the {@code TransientTransactionError} label when
     *                          {@code max-open} transactions are open; HostUnreachable (6) when PostgreSQL refuses a new
     *                          connection
     */
    Connection acquire() {
        if (!permits.tryAcquire()) {
            throw new CommandException(ErrorCode.LockTimeout, "this shard already has " + maxOpen + " open transactions"
                    + " (shardstore.shard.transactions.max-open); retry the transaction later", ErrorLabel.TransientTransactionError.extraInfo());
        }
        try {
            Connection reused;
            while ((reused = idle.pollFirst()) != null) {
                if (reused.isValid(1)) {
                    return reused;
                }
                closeQuietly(reused);
            }
            return open();
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw new CommandException(ErrorCode.HostUnreachable, "could not open a connection for a transaction: " + e.getMessage(), e);
        }
    }

    /** Gives back a connection whose transaction is over (committed or rolled back); a broken one is closed. */
    void release(Connection connection, boolean reusable) {
        try {
            if (reusable && !connection.isClosed()) {
                idle.addFirst(connection);
            } else {
                closeQuietly(connection);
            }
        } catch (SQLException e) {
            closeQuietly(connection);
        } finally {
            permits.release();
        }
    }

    /** How many transactions hold a connection now. */
    public int openTransactions() {
        return maxOpen - permits.availablePermits();
    }

    private Connection open() throws SQLException {
        Connection connection = DriverManager.getConnection(database.determineUrl(), database.determineUsername(), database.determinePassword());
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET lock_timeout = '1ms'");
        }
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        connection.setAutoCommit(false);
        return connection;
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("closing a transaction connection failed: {}", e.toString());
        }
    }

    @Override
    public void destroy() {
        Connection connection;
        while ((connection = idle.pollFirst()) != null) {
            closeQuietly(connection);
        }
    }
}
