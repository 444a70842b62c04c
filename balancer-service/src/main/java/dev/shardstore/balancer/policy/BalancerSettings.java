package dev.shardstore.balancer.policy;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's balancer settings, {@code config.settings} documents {@code balancer} and {@code chunksize}
 * (reference: "Auto-splitting and auto-balancing"; MongoDB's balancer settings).
 *
 * @param mode                        {@code full} balances, {@code off} does nothing (balancerStart / balancerStop)
 * @param activeWindow                when set, rounds act only inside it
 * @param attemptToBalanceJumboChunks whether moves are sent with {@code forceJumbo} (chunks already flagged jumbo are
 *                                    still never chosen, as in MongoDB)
 * @param chunkSizeBytes              the cluster's maximum chunk size ({@code chunksize} is in MB there), positive
 * @param policy                      how load is measured (data size, MongoDB's default since 6.0.3; or chunk count)
 */
public record BalancerSettings(Mode mode, @Nullable ActiveWindow activeWindow, boolean attemptToBalanceJumboChunks,
        long chunkSizeBytes, Policy policy) {
    /** MongoDB's default maximum chunk size, 128 MB. */
    public static final long DEFAULT_CHUNK_SIZE_BYTES = 128L * 1024 * 1024;

    /** MongoDB's defaults: balancer on, no window, no forced jumbo moves, 128 MB chunks, data-size policy. */
    public static final BalancerSettings DEFAULTS = new BalancerSettings(Mode.FULL, null, false, DEFAULT_CHUNK_SIZE_BYTES, Policy.DATA_SIZE);

    public BalancerSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(policy, "policy");
        if (chunkSizeBytes <= 0) {
            throw new IllegalArgumentException("chunkSizeBytes must be positive, not " + chunkSizeBytes);
        }
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
