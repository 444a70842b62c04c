package dev.shardstore.balancer.policy;

/**
 * Why a chunk moves, in the reference's priority order; the values are MongoDB's ({@code balancerCollectionStatus}
 * {@code firstComplianceViolation} and the balancer's {@code MigrationReason}).
 */
public enum MigrationReason {
    DRAINING("draining"), ZONE_VIOLATION("zoneViolation"), CHUNKS_IMBALANCE("chunksImbalance");

    private final String value;

    MigrationReason(String value) {
        this.value = value;
    }

    /** MongoDB's spelling. */
    public String value() {
        return value;
    }
}
