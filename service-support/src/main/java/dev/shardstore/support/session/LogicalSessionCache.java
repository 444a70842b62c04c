package dev.shardstore.support.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.contracts.session.SessionsApi.SessionRecord;
import dev.shardstore.transport.http.CommandClient;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's logical session cache (mongo/src/mongo/db/s/README.md "The logical session cache"): the sessions used on this node with their
 * {@code lastUse}, synced with the session service's sessions collection every {@code refresh-interval}
 * ({@code logicalSessionRefreshMillis}) in MongoDB's four steps: (1) upsert the sessions used here since the last
 * refresh, (2) delete the ones ended here ({@code endSessions}, {@code killSessions}), (3) drop from the cache the
 * cached sessions no longer in the collection (expired by its TTL), (4) tell the listeners which sessions are gone
 * (ended or expired) so their cursors are killed. Then the reap step runs the registered reapers (a shard deletes the
 * transaction-table rows of sessions that are gone).
 *
 * <p>A refresh that cannot reach the session service keeps its pending work for the next one. Thread-safe; one
 * refresh at a time.
 */
public final class LogicalSessionCache implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LogicalSessionCache.class);
    private static final String PEER = "sessions";

    /** What one refresh did: sessions upserted, removed (ended here), expired (gone from the collection). */
    public record RefreshResult(int refreshed, int ended, Set<LogicalSessionId> expired) {}

    /** Reaps per-session state of sessions that are gone (mongo/src/mongo/db/s/README.md "Periodic cleanup of the session catalog and transactions table": the "reap" function). */
    @FunctionalInterface
    public interface Reaper {
        /** Runs once per refresh; {@code cache} answers which sessions still exist. */
        void reap(LogicalSessionCache cache);
    }

    private final CommandClient client;
    private final LogicalSessionCacheProperties properties;
    private final Clock clock;
    private final Map<LogicalSessionId, Instant> active = new ConcurrentHashMap<>();
    private final Set<LogicalSessionId> used = ConcurrentHashMap.newKeySet();
    private final Set<LogicalSessionId> ended = ConcurrentHashMap.newKeySet();
    private final List<Consumer<Set<LogicalSessionId>>> goneListeners = new CopyOnWriteArrayList<>();
    private final List<Reaper> reapers = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService scheduler;

    public LogicalSessionCache(CommandClient client, LogicalSessionCacheProperties properties, Clock clock) {
        this.client = client;
        this.properties = properties;
        this.clock = clock;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("logical-session-refresh").factory());
        long period = properties.refreshInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::refreshQuietly, period, period, TimeUnit.MILLISECONDS);
    }

    /** Places {@code lsid} in the cache, or bumps its {@code lastUse} (mongo/src/mongo/db/s/README.md "How a session gets placed ..."). */
    public void vivify(LogicalSessionId lsid) {
        active.put(lsid, clock.instant());
        used.add(lsid);
    }

    /** Ends the sessions here ({@code endSessions}): out of the cache now, out of the sessions collection at the next refresh. */
    public void end(Collection<LogicalSessionId> lsids) {
        for (LogicalSessionId lsid : lsids) {
            active.remove(lsid);
            used.remove(lsid);
            ended.add(lsid);
        }
    }

    /** Ends the sessions and kills their cursors now ({@code killSessions}). */
    public void kill(Collection<LogicalSessionId> lsids) {
        end(lsids);
        notifyGone(Set.copyOf(lsids));
    }

    /** Kills every session in this node's cache ({@code killAllSessions}); the sessions killed. */
    public Set<LogicalSessionId> killAll() {
        Set<LogicalSessionId> all = Set.copyOf(active.keySet());
        kill(all);
        return all;
    }

    /** Called with the sessions found ended or expired, after each refresh and on {@link #kill}. */
    public void onSessionsGone(Consumer<Set<LogicalSessionId>> listener) {
        goneListeners.add(listener);
    }

    /** Runs {@code reaper} after each refresh. */
    public void addReaper(Reaper reaper) {
        reapers.add(reaper);
    }

    /** The sessions in this node's cache, as {@code $listLocalSessions} shows them ({@code {_id, lastUse}}). */
    public List<SessionRecord> localSessions() {
        return active.entrySet().stream().map(e -> new SessionRecord(e.getKey(), e.getValue())).toList();
    }

    /** Sessions in this node's cache. */
    public int size() {
        return active.size();
    }

    /** {@code localLogicalSessionTimeoutMinutes}. */
    public java.time.Duration timeout() {
        return properties.timeout();
    }

    /**
     * Those of {@code lsids} still in the sessions collection (neither ended nor expired).
     *
     * @throws CommandException when the session service cannot be asked
     */
    public Set<LogicalSessionId> stillStored(Collection<LogicalSessionId> lsids) {
        if (lsids.isEmpty()) {
            return Set.of();
        }
        BsonDocument reply = client.runChecked(PEER, properties.sessionUrl(), "config",
                SessionsApi.command(SessionsApi.FIND, lsids.stream().<BsonValue>map(LogicalSessionId::toBson).toList()));
        return new HashSet<>(SessionsApi.lsids(reply, "found"));
    }

    /**
     * One refresh and reap, now (the periodic job calls it too).
     *
     * @throws CommandException when the session service cannot be reached; what was pending stays pending
     */
    public synchronized RefreshResult refresh() {
        Map<LogicalSessionId, Instant> toRefresh = new LinkedHashMap<>();
        for (LogicalSessionId lsid : Set.copyOf(used)) {
            Instant lastUse = active.get(lsid);
            if (lastUse != null) {
                toRefresh.put(lsid, lastUse);
            }
        }
        if (!toRefresh.isEmpty()) {
            client.runChecked(PEER, properties.sessionUrl(), "config", SessionsApi.command(SessionsApi.REFRESH,
                    toRefresh.entrySet().stream().<BsonValue>map(e -> new SessionRecord(e.getKey(), e.getValue()).toBson()).toList()));
            used.removeAll(toRefresh.keySet());
        }
        Set<LogicalSessionId> toEnd = Set.copyOf(ended);
        if (!toEnd.isEmpty()) {
            client.runChecked(PEER, properties.sessionUrl(), "config",
                    SessionsApi.command(SessionsApi.REMOVE, toEnd.stream().<BsonValue>map(LogicalSessionId::toBson).toList()));
            ended.removeAll(toEnd);
        }
        Set<LogicalSessionId> cached = new HashSet<>(active.keySet());
        cached.removeAll(used); // used since this refresh began: not expired
        Set<LogicalSessionId> expired = new HashSet<>(cached);
        expired.removeAll(stillStored(cached));
        expired.removeIf(lsid -> used.contains(lsid)); // used while we asked
        expired.forEach(active::remove);
        Set<LogicalSessionId> gone = new HashSet<>(expired);
        gone.addAll(toEnd);
        if (!gone.isEmpty()) {
            notifyGone(Set.copyOf(gone));
        }
        for (Reaper reaper : reapers) {
            reaper.reap(this);
        }
        return new RefreshResult(toRefresh.size(), toEnd.size(), Set.copyOf(expired));
    }

    private void refreshQuietly() {
        try {
            RefreshResult result = refresh();
            if (!result.expired().isEmpty() || result.ended() > 0) {
                log.info("logical session cache refresh: {} refreshed, {} ended, {} expired", result.refreshed(), result.ended(), result.expired().size());
            }
        } catch (RuntimeException e) {
            log.warn("logical session cache refresh failed; pending sessions stay pending: {}", e.getMessage());
        }
    }

    private void notifyGone(Set<LogicalSessionId> gone) {
        for (Consumer<Set<LogicalSessionId>> listener : goneListeners) {
            listener.accept(gone);
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
