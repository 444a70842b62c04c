package dev.shardstore.shard.timeseries;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.FindQuery;
import dev.shardstore.shard.cursor.QueryRunner;
import dev.shardstore.shard.cursor.ShardCursor;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The TTL monitor of time-series collections (MongoDB's {@code TTLMonitor}, run every {@code ttlMonitorSleepSecs}, 60
 * by default): every {@code shardstore.shard.ttl-monitor-interval} it deletes, from each buckets collection whose
 * collection has {@code expireAfterSeconds}, the buckets whose newest measurement ({@code control.max.<timeField>})
 * is more than {@code expireAfterSeconds} old. Each collection's deletes are one write under its collection lock,
 * taken as a write command takes it (so a migration's critical section blocks them), with an oplog entry per bucket.
 */
@Component
public class TimeseriesTtlMonitor {
    /** The context of the monitor\'s own deletes: no deadline, no session. */
    private static final OperationContext TTL_MONITOR = OperationContext.internal("timeseriesTtlMonitor");
    private static final Logger log = LoggerFactory.getLogger(TimeseriesTtlMonitor.class);

    private final CollectionCatalog catalog;
    private final CollectionShardingRuntime runtime;
    private final QueryRunner queries;
    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final Clock clock;

    @Autowired
    public TimeseriesTtlMonitor(CollectionCatalog catalog, CollectionShardingRuntime runtime, QueryRunner queries, DocumentStore store,
            WriteUnitOfWork units) {
        this(catalog, runtime, queries, store, units, Clock.systemUTC());
    }

    TimeseriesTtlMonitor(CollectionCatalog catalog, CollectionShardingRuntime runtime, QueryRunner queries, DocumentStore store,
            WriteUnitOfWork units, Clock clock) {
        this.catalog = catalog;
        this.runtime = runtime;
        this.queries = queries;
        this.store = store;
        this.units = units;
        this.clock = clock;
    }

    /** One pass over every time-series collection of the shard; returns how many buckets it deleted. */
    @Scheduled(fixedDelayString = "${shardstore.shard.ttl-monitor-interval:60s}", initialDelayString = "${shardstore.shard.ttl-monitor-interval:60s}")
    public int expire() {
        Instant now = clock.instant();
        int deleted = 0;
        for (CollectionInfo buckets : catalog.listAll()) {
            Optional<TimeseriesOptions> options = TimeseriesCollections.optionsOf(TTL_MONITOR, buckets);
            BsonValue expireAfter = buckets.options().get("expireAfterSeconds");
            if (options.isPresent() && expireAfter != null && expireAfter.isNumber()) {
                long cutoff = now.toEpochMilli() - expireAfter.asNumber().longValue() * 1000;
                deleted += expire(buckets, options.get(), cutoff);
            }
        }
        return deleted;
    }

    private int expire(CollectionInfo buckets, TimeseriesOptions options, long cutoffMillis) {
        BsonDocument filter = new BsonDocument("control.max." + options.timeField(), new BsonDocument("$lt", new BsonDateTime(cutoffMillis)));
        BsonDocument command = new BsonDocument("delete", new BsonString(buckets.namespace().collection()));
        int deleted = runtime.run(TTL_MONITOR, buckets.namespace().db(), buckets.namespace(), CollectionAccess.WRITE, command, false, opCtx -> {
            // the collection may have been dropped (and made again) since the catalog was listed
            Optional<CollectionInfo> current = catalog.find(buckets.namespace()).filter(c -> c.uuid().equals(buckets.uuid()));
            if (current.isEmpty()) {
                return 0;
            }
            List<StoredDocument> expired = new ArrayList<>();
            ShardCursor cursor = queries.find(opCtx, current.get(), new FindQuery(Filter.parse(filter), null, null, 0, 0, filter, null), 1000);
            Batch batch;
            do {
                batch = cursor.next(opCtx, 1000);
                batch.documents().forEach(bucket -> expired.add(StoredDocument.of(bucket)));
            } while (!batch.exhausted());
            return expired.isEmpty() ? 0 : units.write(opCtx, inUnit -> store.delete(inUnit, current.get(), expired));
        });
        if (deleted > 0) {
            log.info("TTL deleted {} buckets of {} with no measurement since {}", deleted, buckets.namespace(),
                    Instant.ofEpochMilli(cutoffMillis));
        }
        return deleted;
    }
}
