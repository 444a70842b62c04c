package dev.shardstore.support.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one coalescing cache of the router's database and routing table caches and the shard's sharding state, with the
 * cases its three former copies handled each their own way: a failed load (shared by its joiners, not cached), a
 * "nothing to cache" result (the router's absent database), a stale mark during a load (the router stored the newer
 * result, still stale; the shard dropped it), an invalidation or a {@code put} during a load (the load's result is not
 * stored), and a versioned mark that a running load meets.
 */
class CoalescingCacheTest {
    private final CoalescingCache<String> cache = new CoalescingCache<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** A load that waits for {@link #release} and counts its runs, answering "v" + its run number. */
    private static final class HeldLoad implements Function<@Nullable String, @Nullable String> {
        final CountDownLatch started = new CountDownLatch(1);
        final CompletableFuture<@Nullable String> release = new CompletableFuture<>();
        final AtomicInteger runs = new AtomicInteger();
        final List<@Nullable String> bases = new ArrayList<>();

        @Override
        public @Nullable String apply(@Nullable String base) {
            synchronized (bases) {
                bases.add(base);
            }
            runs.incrementAndGet();
            started.countDown();
            return release.join();
        }
    }

    private Future<@Nullable String> refreshInBackground(String name, Function<@Nullable String, @Nullable String> load) {
        return threads.submit(() -> cache.refresh(name, load));
    }

    /**
     * Starts a refresh of {@code name} on a thread of its own and returns once that thread is parked, which it only is
     * when it joined the load already running (its own load would not park: {@code load} must not be held then).
     */
    private CompletableFuture<@Nullable String> joinInBackground(String name, Function<@Nullable String, @Nullable String> load) {
        CompletableFuture<@Nullable String> result = new CompletableFuture<>();
        Thread joiner = new Thread(() -> {
            try {
                result.complete(cache.refresh(name, load));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        joiner.setDaemon(true);
        joiner.start();
        while (joiner.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        return result;
    }

    @Test
    void aLoadIsRunOnceAndLaterCallersJoinIt() throws Exception {
        HeldLoad load = new HeldLoad();
        Future<@Nullable String> first = refreshInBackground("db", load);
        assertThat(load.started.await(10, TimeUnit.SECONDS)).isTrue();
        List<CompletableFuture<@Nullable String>> joiners = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            joiners.add(joinInBackground("db", base -> "a load of its own"));
        }
        load.release.complete("v1");
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("v1");
        for (CompletableFuture<@Nullable String> joiner : joiners) {
            assertThat(joiner.get(10, TimeUnit.SECONDS)).isEqualTo("v1");
        }
        assertThat(load.runs).hasValue(1);
        assertThat(cache.fresh("db")).contains("v1");
        assertThat(cache.get("db", base -> "never")).isEqualTo("v1");
    }

    @Test
    void otherNamesLoadIndependently() {
        assertThat(cache.refresh("a", base -> "A")).isEqualTo("A");
        assertThat(cache.refresh("b", base -> "B")).isEqualTo("B");
        assertThat(cache.snapshot()).isEqualTo(Map.of("a", "A", "b", "B"));
    }

    @Test
    void aFailedLoadFailsEveryJoinerAndIsNotCached() throws Exception {
        HeldLoad load = new HeldLoad();
        Future<@Nullable String> first = refreshInBackground("db", load);
        assertThat(load.started.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<@Nullable String> joiner = joinInBackground("db", base -> "a load of its own");
        load.release.completeExceptionally(new IllegalStateException("config down"));
        assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("config down");
        assertThatThrownBy(() -> joiner.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("config down");
        assertThat(cache.last("db")).isEmpty();
        assertThat(cache.refresh("db", base -> "v2")).as("the next refresh loads again").isEqualTo("v2");
    }

    @Test
    void aFailedRefreshKeepsTheLastValueAsItWas() {
        cache.refresh("db", base -> "v1");
        cache.markStale("db");
        assertThatThrownBy(() -> cache.refresh("db", base -> {
            throw new IllegalStateException("config down");
        })).hasMessage("config down");
        assertThat(cache.last("db")).contains("v1");
        assertThat(cache.isStale("db")).isTrue();
    }

    @Test
    void nothingToCacheForgetsTheValue() {
        assertThat(cache.refresh("db", base -> null)).isNull();
        assertThat(cache.last("db")).isEmpty();
        assertThat(cache.snapshot()).isEmpty();
        cache.put("db", "v1");
        cache.markStale("db");
        assertThat(cache.refresh("db", base -> null)).isNull();
        assertThat(cache.last("db")).as("the database is gone").isEmpty();
    }

    @Test
    void aLoadIsGivenTheLastValueEvenWhenStale() {
        cache.refresh("ns", base -> "v1");
        cache.markStale("ns");
        assertThat(cache.fresh("ns")).isEmpty();
        assertThat(cache.last("ns")).contains("v1");
        assertThat(cache.refresh("ns", base -> base + "+changes")).isEqualTo("v1+changes");
        assertThat(cache.fresh("ns")).contains("v1+changes");
    }

    @Test
    void aStaleMarkDuringALoadStoresItsResultStillStale() throws Exception {
        HeldLoad load = new HeldLoad();
        Future<@Nullable String> running = refreshInBackground("ns", load);
        assertThat(load.started.await(10, TimeUnit.SECONDS)).isTrue();
        cache.markStale("ns");
        load.release.complete("v1");
        assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("v1");
        assertThat(cache.last("ns")).contains("v1");
        assertThat(cache.fresh("ns")).as("the mark came after the load read the catalog").isEmpty();
        assertThat(cache.get("ns", base -> base + "+next")).isEqualTo("v1+next");
    }

    @Test
    void aRefreshAfterAStaleMarkWaitsForTheOutdatedLoadAndLoadsAgain() throws Exception {
        HeldLoad outdated = new HeldLoad();
        Future<@Nullable String> running = refreshInBackground("ns", outdated);
        assertThat(outdated.started.await(10, TimeUnit.SECONDS)).isTrue();
        cache.markStale("ns");
        AtomicInteger ownLoads = new AtomicInteger();
        CompletableFuture<@Nullable String> after = joinInBackground("ns", base -> {
            ownLoads.incrementAndGet();
            return base + "+after the mark";
        });
        outdated.release.complete("v1");
        assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("v1");
        assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo("v1+after the mark");
        assertThat(ownLoads).hasValue(1);
        assertThat(cache.fresh("ns")).contains("v1+after the mark");
    }

    @Test
    void anInvalidationDuringALoadKeepsItsResultOutAndTheNextCallerLoadsAnew() throws Exception {
        cache.put("db", "v0");
        HeldLoad load = new HeldLoad();
        Future<@Nullable String> running = refreshInBackground("db", load);
        assertThat(load.started.await(10, TimeUnit.SECONDS)).isTrue();
        cache.invalidate("db");
        assertThat(cache.refresh("db", base -> "after " + base)).as("not joined to the load from before").isEqualTo("after null");
        load.release.complete("old");
        assertThat(running.get(10, TimeUnit.SECONDS)).as("its own caller still gets it").isEqualTo("old");
        assertThat(cache.fresh("db")).contains("after null");
    }

    @Test
    void aPutDuringALoadIsNotOverwritten() throws Exception {
        HeldLoad load = new HeldLoad();
        Future<@Nullable String> running = refreshInBackground("db", load);
        assertThat(load.started.await(10, TimeUnit.SECONDS)).isTrue();
        cache.put("db", "dropped marker");
        load.release.complete("from config");
        running.get(10, TimeUnit.SECONDS);
        assertThat(cache.fresh("db")).contains("dropped marker");
    }

    @Test
    void aConditionalMarkTheValueMeetsCostsNothing() {
        cache.refresh("ns", base -> "5");
        cache.markStale("ns", current -> next -> Integer.parseInt(next) >= 3);
        assertThat(cache.fresh("ns")).contains("5");
    }

    @Test
    void aConditionalMarkKeepsTheEntryStaleUntilAValueMeetsIt() {
        cache.refresh("ns", base -> "1");
        cache.markStale("ns", current -> next -> Integer.parseInt(next) >= 3);
        assertThat(cache.isStale("ns")).isTrue();
        cache.refresh("ns", base -> "2");
        assertThat(cache.isStale("ns")).as("2 is not yet 3").isTrue();
        cache.refresh("ns", base -> "3");
        assertThat(cache.fresh("ns")).contains("3");
    }

    @Test
    void aConditionalMarkDuringALoadIsMetByItsResult() throws Exception {
        cache.refresh("ns", base -> "1");
        cache.markStale("ns");
        HeldLoad load = new HeldLoad();
        Future<@Nullable String> running = refreshInBackground("ns", load);
        assertThat(load.started.await(10, TimeUnit.SECONDS)).isTrue();
        cache.markStale("ns", current -> next -> Integer.parseInt(next) >= 4);
        load.release.complete("4");
        running.get(10, TimeUnit.SECONDS);
        assertThat(cache.fresh("ns")).as("the event's version arrived with the refresh already running").contains("4");
        assertThat(load.runs).hasValue(1);
    }

    @Test
    void conditionalMarksAddUpAndANullConditionIsAnUnconditionalMark() {
        cache.refresh("ns", base -> "1");
        cache.markStale("ns", current -> next -> Integer.parseInt(next) >= 3);
        cache.markStale("ns", current -> next -> Integer.parseInt(next) >= 5);
        cache.refresh("ns", base -> "4");
        assertThat(cache.isStale("ns")).isTrue();
        cache.refresh("ns", base -> "5");
        assertThat(cache.isStale("ns")).isFalse();
        cache.markStale("ns", current -> null);
        assertThat(cache.isStale("ns")).isTrue();
    }

    @Test
    void marksOnAnUnknownNameDoNothing() {
        cache.markStale("ns");
        cache.markStale("ns", current -> null);
        assertThat(cache.refresh("ns", base -> "1")).isEqualTo("1");
        assertThat(cache.fresh("ns")).contains("1");
    }

    @Test
    void invalidateIfForgetsTheNamesItAccepts() {
        cache.put("db.a", "A");
        cache.put("db.b", "B");
        cache.put("other.c", "C");
        cache.invalidateIf(name -> name.startsWith("db."));
        assertThat(cache.snapshot()).isEqualTo(Map.of("other.c", "C"));
    }
}
