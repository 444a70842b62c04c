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
 * The shard's part of the logical session cache's reap (reference: "Periodic cleanup of the session catalog and
 * transactions table", steps 3 and 4): after each refresh, the {@code transactions} rows last written more than
 * {@code localLogicalSessionTimeoutMinutes} ago whose session is no longer in the sessions collection (expired or ended)
 * are deleted. A row written again meanwhile is kept.
 */
@Component
public class TransactionTableReaper implements LogicalSessionCache.Reaper {
    private static final Logger log = LoggerFactory.getLogger(TransactionTableReaper.class);

    private final SessionHistory history;

    public TransactionTableReaper(SessionHistory history, LogicalSessionCache sessions) {
        this.history = history;
        sessions.addReaper(this);
    }

    @Override
    public void reap(LogicalSessionCache cache) {
        Instant cutoff = Instant.now().minus(cache.timeout());
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
