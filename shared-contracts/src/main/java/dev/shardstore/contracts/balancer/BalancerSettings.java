package dev.shardstore.contracts.balancer;

import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's balancer settings, {@code config.settings} documents {@code balancer}, {@code chunksize} and
 * {@code automerge} (mongo/src/mongo/db/s/README.md "Auto-splitting and auto-balancing"; MongoDB's balancer settings). The config service
 * validates every settings update with {@link #fromDocuments} and the balancer service reads them with it: one parser.
 *
 * @param mode                        {@code full} balances, {@code off} does nothing (balancerStart / balancerStop)
 * @param activeWindow                when set, rounds act only inside it
 * @param attemptToBalanceJumboChunks whether moves are sent with {@code forceJumbo} (chunks already flagged jumbo are
 *                                    still never chosen, as in MongoDB)
 * @param chunkSizeBytes              the cluster's maximum chunk size ({@code chunksize} is in MB there), positive
 * @param policy                      how load is measured (data size, MongoDB's default since 6.0.3; or chunk count)
 * @param autoMerge                   {@code automerge.enabled}: whether the auto-merger joins small contiguous chunks
 *                                    (MongoDB 7.0's default: on)
 * @param waitForDelete               {@code _waitForDelete}: whether a balancer migration waits for its donor's range
 *                                    deletion before it counts as done
 */
public record BalancerSettings(Mode mode, @Nullable ActiveWindow activeWindow, boolean attemptToBalanceJumboChunks,
        long chunkSizeBytes, Policy policy, boolean autoMerge, boolean waitForDelete) {
    /** MongoDB's default maximum chunk size, 128 MB. */
    public static final long DEFAULT_CHUNK_SIZE_BYTES = 128L * 1024 * 1024;

    /** The smallest and largest {@code chunksize} MongoDB accepts, in MiB. */
    public static final int MIN_CHUNK_SIZE_MB = 1;
    public static final int MAX_CHUNK_SIZE_MB = 1024;

    /**
     * MongoDB's defaults: balancer on, no window, no forced jumbo moves, 128 MB chunks, data-size policy, auto-merger on,
     * no wait for range deletions.
     */
    public static final BalancerSettings DEFAULTS = new BalancerSettings(Mode.FULL, null, false, DEFAULT_CHUNK_SIZE_BYTES, Policy.DATA_SIZE,
            true, false);

    public BalancerSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(policy, "policy");
        if (chunkSizeBytes <= 0) {
            throw new IllegalArgumentException("chunkSizeBytes must be positive, not " + chunkSizeBytes);
        }
    }

    /**
     * Reads the three {@code config.settings} documents (each without {@code _id}; empty when unset), MongoDB's defaults for
     * whatever is unset. {@code balancer}: {@code mode} ({@code full} / {@code off}; without it the legacy {@code stopped}
     * boolean), {@code activeWindow {start, stop}} ("HH:mm"), {@code attemptToBalanceJumboChunks}, {@code policy},
     * {@code _waitForDelete}; {@code chunksize}: {@code value} in MiB, {@value #MIN_CHUNK_SIZE_MB}..{@value #MAX_CHUNK_SIZE_MB};
     * {@code automerge}: {@code enabled}.
     *
     * @throws IllegalArgumentException naming the document and field whose value is malformed
     */
    public static BalancerSettings fromDocuments(BsonDocument balancer, BsonDocument chunksize, BsonDocument automerge) {
        Mode mode = balancer.containsKey("mode") ? Mode.parse(string(balancer, "balancer", "mode"))
                : bool(balancer, "balancer", "stopped", false) ? Mode.OFF : DEFAULTS.mode();
        ActiveWindow window = null;
        BsonValue activeWindow = balancer.get("activeWindow");
        if (activeWindow != null && !activeWindow.isNull()) {
            if (!activeWindow.isDocument()) {
                throw new IllegalArgumentException("balancer 'activeWindow' must be a document {start: \"HH:mm\", stop: \"HH:mm\"}");
            }
            window = ActiveWindow.parse(string(activeWindow.asDocument(), "balancer", "activeWindow.start"),
                    string(activeWindow.asDocument(), "balancer", "activeWindow.stop"));
        }
        long chunkSize = DEFAULTS.chunkSizeBytes();
        if (chunksize.containsKey("value")) {
            if (!chunksize.isNumber("value")) {
                throw new IllegalArgumentException("chunksize 'value' must be a number of MiB");
            }
            double mb = chunksize.getNumber("value").doubleValue();
            if (mb < MIN_CHUNK_SIZE_MB || mb > MAX_CHUNK_SIZE_MB) {
                throw new IllegalArgumentException("chunksize 'value' must be between " + MIN_CHUNK_SIZE_MB + " and " + MAX_CHUNK_SIZE_MB
                        + " (MiB), not " + mb);
            }
            chunkSize = (long) (mb * 1024 * 1024);
        }
        Policy policy = balancer.containsKey("policy") ? Policy.parse(string(balancer, "balancer", "policy")) : DEFAULTS.policy();
        return new BalancerSettings(mode, window, bool(balancer, "balancer", "attemptToBalanceJumboChunks", false), chunkSize, policy,
                bool(automerge, "automerge", "enabled", DEFAULTS.autoMerge()), bool(balancer, "balancer", "_waitForDelete", false));
    }

    private static String string(BsonDocument doc, String document, String field) {
        String key = field.substring(field.lastIndexOf('.') + 1);
        if (!doc.isString(key)) {
            throw new IllegalArgumentException(document + " '" + field + "' must be a string");
        }
        return doc.getString(key).getValue();
    }

    private static boolean bool(BsonDocument doc, String document, String field, boolean defaultValue) {
        BsonValue value = doc.get(field);
        if (value == null) {
            return defaultValue;
        }
        if (!value.isBoolean()) {
            throw new IllegalArgumentException(document + " '" + field + "' must be a boolean");
        }
        return value.asBoolean().getValue();
    }

    /** The balancer's {@code mode} setting, MongoDB's values ({@code full}, {@code off}). */
    public enum Mode {
        FULL("full"), OFF("off");

        private final String value;

        Mode(String value) {
            this.value = value;
        }

        /** The setting's value as stored and reported ({@code balancerStatus.mode}). */
        public String value() {
            return value;
        }

        /** @throws IllegalArgumentException naming the value when it is neither {@code full} nor {@code off} */
        public static Mode parse(String value) {
            return BalancerSettings.parse(values(), Mode::value, "mode", value);
        }
    }

    /** How a shard's load is measured when balancing a zone. */
    public enum Policy {
        /** Owned bytes per shard; balanced while max − min is under three chunk sizes (MongoDB ≥ 6.0.3). */
        DATA_SIZE("dataSize"),
        /** Chunks per shard with the migration thresholds 2 / 4 / 8 (MongoDB before 6.0.3). */
        CHUNK_COUNT("chunkCount");

        private final String value;

        Policy(String value) {
            this.value = value;
        }

        /** The setting's value as stored ({@code config.settings} balancer {@code policy}). */
        public String value() {
            return value;
        }

        /** @throws IllegalArgumentException naming the value when it is neither {@code dataSize} nor {@code chunkCount} */
        public static Policy parse(String value) {
            return BalancerSettings.parse(values(), Policy::value, "policy", value);
        }
    }

    private static <E> E parse(E[] values, java.util.function.Function<E, String> name, String field, String value) {
        for (E candidate : values) {
            if (name.apply(candidate).equals(value)) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("balancer " + field + " must be one of "
                + java.util.Arrays.stream(values).map(name).toList() + ", not '" + value + "'");
    }
}
