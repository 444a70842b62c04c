package dev.shardstore.shard.storage;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.WriteConcern;
import org.bson.BsonDocument;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Whether this shard's PostgreSQL puts a commit on disk before it answers, and the refusal of a write concern
 * {@code j: true} (or {@code fsync: true}) that it would not honour.
 *
 * <p>A commit is flushed before PostgreSQL acknowledges it when {@code fsync} is on and {@code synchronous_commit} is
 * not {@code off} (PostgreSQL manual "Write Ahead Log", the settings' section): the durable setting of the embedded
 * server (docs/architecture.md "Durability"), and PostgreSQL's own default. With the fast setting ({@code fsync} off) no
 * per-transaction setting can force the flush — {@code SET LOCAL synchronous_commit = on} waits for a WAL write that
 * is itself not fsynced — so {@code j: true} is refused rather than acknowledged untrue, as MongoDB refused
 * {@code j} on a node without journaling.
 */
@Component
public class CommitDurability {
    private final JdbcClient jdbc;

    public CommitDurability(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Whether the server flushes every commit now. Asked of the server each time (a reload can change {@code fsync}):
     * only writes that ask for {@code j} pay the round trip.
     */
    public boolean flushesCommits() {
        return jdbc.sql("SELECT current_setting('fsync') = 'on' AND current_setting('synchronous_commit') <> 'off'")
                .query(Boolean.class).single();
    }

    /**
     * Refuses {@code command} when its write concern asks for a flushed commit that this server does not give; does
     * nothing for any other command. Called before the command writes anything.
     *
     * @throws CommandException BadValue (2) naming {@code <command>.writeConcern.j} and the server's setting; what
     *                          {@link WriteConcern#of} throws for a malformed write concern
     */
    public void requireHonoured(BsonDocument command) {
        if (WriteConcern.of(command).journaled() && !flushesCommits()) {
            throw new CommandException(ErrorCode.BadValue, "cannot satisfy '" + command.getFirstKey() + "." + WriteConcern.FIELD
                    + ".j': this shard's PostgreSQL does not flush commits to disk (fsync or synchronous_commit off: the"
                    + " cluster was started with --durability fast, which is not crash-safe)");
        }
    }
}
