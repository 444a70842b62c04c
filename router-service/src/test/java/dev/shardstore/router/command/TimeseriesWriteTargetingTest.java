package dev.shardstore.router.command;

import dev.shardstore.router.write.QueryTargeting;
import dev.shardstore.router.write.BatchedWrite;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.TimeseriesTargetingTest;
import org.junit.jupiter.api.Test;

/**
 * Where update and delete statements on a sharded time-series collection go ({@link QueryTargeting};
 * mongo/src/mongo/db/s/README_timeseries.md "CRUD operations"): by the bucket-level predicate of their filter, to every shard owning chunks
 * when it narrows nothing, and single-measurement writes that do not pin the bucket's shard key the read-then-write way.
 */
class TimeseriesWriteTargetingTest {
    private static final CollectionRouting BY_META = TimeseriesTargetingTest.routing("{meta: 1}", "{meta: 'Seattle'}");
    private static final CollectionRouting BY_TIME = TimeseriesTargetingTest.routing("{'control.min.ts': 1}",
            "{'control.min.ts': {$date: '2014-01-01T00:00:00Z'}}");

    private static BatchedWrite.Target target(CollectionRouting routing, String q, boolean multi, boolean upsert) {
        return QueryTargeting.target(routing, ExtendedJson.parse(q), Collation.SIMPLE, multi, upsert);
    }

    @Test
    void aMetaEqualityTargetsTheOneOwningShardSingleOrMulti() {
        assertThat(target(BY_META, "{loc: 'Seattle', wind: 3}", true, false).shards()).containsExactly("s1");
        assertThat(target(BY_META, "{loc: 'Boston'}", false, false).shards()).containsExactly("s0");
        assertThat(target(BY_META, "{loc: 'Boston'}", false, true).shards()).as("an upsert pinning the meta").containsExactly("s0");
    }

    @Test
    void aMultiWriteWithoutTheMetaBroadcastsAndATimeRangeTargetsByControlMin() {
        assertThat(target(BY_META, "{wind: {$gt: 3}}", true, false).shards()).containsExactly("s0", "s1");
        assertThat(target(BY_TIME, "{ts: {$lt: {$date: '2013-01-01T00:00:00Z'}}}", true, false).shards()).containsExactly("s0");
        assertThat(target(BY_TIME, "{ts: {$gte: {$date: '2015-03-01T00:00:00Z'}}}", true, false).shards()).containsExactly("s1");
        assertThat(target(BY_TIME, "{loc: 'Seattle'}", true, false).shards()).containsExactly("s0", "s1");
    }

    @Test
    void aSingleWriteWithoutThePinnedKeyGoesReadThenWriteEvenWithAnIdEquality() {
        assertThat(target(BY_META, "{wind: 3}", false, false).twoPhase()).isTrue();
        assertThat(target(BY_META, "{_id: 7}", false, false).twoPhase()).as("measurement _ids are not unique on a shard").isTrue();
        assertThat(target(BY_TIME, "{ts: {$date: '2013-06-01T00:00:00Z'}}", false, false).twoPhase()).isTrue();
        assertThatThrownBy(() -> target(BY_META, "{wind: 3}", true, true)).isInstanceOf(CommandException.class)
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.ShardKeyNotFound));
    }
}
