package dev.shardstore.shard.versioning;

/**
 * The two phases of a critical section (mongo/src/mongo/db/s/README.md "Migrations", the donor's critical section; MongoDB's
 * {@code ShardingMigrationCriticalSection}): first writes are blocked while the last changes are caught up, then,
 * for the commit, reads too. Only versioned commands (those carrying {@code shardVersion}, as every router request
 * for a collection does) are blocked; getMores keep the snapshot their cursor was opened with.
 */
public enum CriticalSectionPhase {
    /** Phase 1: versioned writes wait ({@code _shardsvrParticipantBlock} with {@code blockType: "Writes"}). */
    CATCH_UP("Writes"),
    /** Phase 2: versioned reads and writes wait ({@code blockType: "ReadsAndWrites"}). */
    COMMIT("ReadsAndWrites");

    private final String blockType;

    CriticalSectionPhase(String blockType) {
        this.blockType = blockType;
    }

    /** The {@code blockType} of {@code _shardsvrParticipantBlock} that enters this phase. */
    public String blockType() {
        return blockType;
    }

    /** The phase a {@code blockType} enters ("Writes" or "ReadsAndWrites"), empty for any other string. */
    public static java.util.Optional<CriticalSectionPhase> ofBlockType(String blockType) {
        return java.util.Arrays.stream(values()).filter(p -> p.blockType.equals(blockType)).findFirst();
    }

    /** Whether a versioned command with {@code access} waits in this phase. */
    public boolean blocks(CollectionAccess access) {
        return switch (access) {
            case NONE -> false;
            case READ -> this == COMMIT;
            case WRITE, EXCLUSIVE -> true;
        };
    }
}
