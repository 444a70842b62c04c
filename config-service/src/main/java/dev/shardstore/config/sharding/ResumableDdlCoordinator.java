package dev.shardstore.config.sharding;

/**
 * One kind of DDL coordinator that {@link ShardingDdlCoordinatorService} resumes from its persisted document
 * (MongoDB's {@code ShardingDDLCoordinator} subclasses: dropCollection, movePrimary).
 */
public interface ResumableDdlCoordinator {
    /** The {@code operation} of this kind's rows in {@code sharding_ddl_coordinators}. */
    String operation();

    /**
     * Runs the unfinished coordinator of {@code key} from the phase its document recorded, or joins it when it is
     * already running in this process.
     *
     * @throws dev.shardstore.contracts.error.CommandException when a phase could not complete (it is resumed again later)
     */
    void resume(String key);
}
