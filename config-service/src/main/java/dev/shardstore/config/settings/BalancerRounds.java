package dev.shardstore.config.settings;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The balancer's persistent round counter (table {@code balancer_rounds}): {@code balancerStatus.numBalancerRounds} counts
 * the rounds of every balancer process the cluster ran, so a restarted balancer service goes on from where the killed one
 * stopped. Thread-safe: each increment is one atomic {@code UPDATE … RETURNING}.
 */
@Repository
public class BalancerRounds {
    private final JdbcClient jdbc;

    public BalancerRounds(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Counts a round that starts now; its number (1 for the cluster's first round). */
    public long next() {
        return jdbc.sql("UPDATE balancer_rounds SET rounds = rounds + 1 RETURNING rounds").query(Long.class).single();
    }

    /** The rounds counted so far. */
    public long count() {
        return jdbc.sql("SELECT rounds FROM balancer_rounds").query(Long.class).single();
    }
}
