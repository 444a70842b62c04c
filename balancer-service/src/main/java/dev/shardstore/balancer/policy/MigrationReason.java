package dev.shardstore.balancer.policy;

/**
 * Why a chunk moves, in the priority order of mongo/src/mongo/db/s/README.md "What happens during a balancer round"; the values are MongoDB's ({@code balancerCollectionStatus}
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
