package dev.shardstore.shard.session;

import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.support.session.LogicalSessionCache;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The shard's part of the logical session cache's reap (mongo/src/mongo/db/s/README.md "Periodic cleanup of the session catalog and
 * transactions table"): after each refresh, the session catalog's entries not checked out for
 * {@code localLogicalSessionTimeoutMinutes} (steps 1 and 2), and the {@code transactions} rows last written longer ago
 * (steps 3 and 4), are removed when their session is no longer in the sessions collection (expired or ended). A row
 * written again meanwhile, or an entry checked out meanwhile, is kept.
 */
@Component
public class TransactionTableReaper implements LogicalSessionCache.Reaper {
    private static final Logger log = LoggerFactory.getLogger(TransactionTableReaper.class);

    private final SessionHistory history;
    private final SessionCatalog catalog;

    public TransactionTableReaper(SessionHistory history, SessionCatalog catalog, LogicalSessionCache sessions) {
        this.history = history;
        this.catalog = catalog;
        sessions.addReaper(this);
    }

    @Override
    public void reap(LogicalSessionCache cache) {
        Instant cutoff = Instant.now().minus(cache.timeout());
        catalog.reap(cutoff, cache::stillStored);
        List<LogicalSessionId> idle = history.idleSince(cutoff);
        if (idle.isEmpty()) {
            return;
        }
        Set<LogicalSessionId> alive = cache.stillStored(idle);
        long reaped = idle.stream().filter(lsid -> !alive.contains(lsid)).filter(lsid -> history.reap(lsid, cutoff)).count();
        if (reaped > 0) {
            log.info("reaped the transaction-table rows of {} expired or ended sessions", reaped);
        }
    }
}
