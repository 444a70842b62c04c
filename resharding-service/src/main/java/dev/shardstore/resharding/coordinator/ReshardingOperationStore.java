package dev.shardstore.resharding.coordinator;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The persisted state documents (table {@code resharding_operations}, MongoDB's {@code config.reshardingOperations}).
 * One writer per document: a coordinator {@link #claim}s a document, which raises its generation, and every
 * {@link #save} names the generation it claimed, so a coordinator that was superseded (the document was resumed by a
 * newer one) fails instead of writing over it. The commit decision and an abort request race on the row and exactly
 * one wins ({@link #decideCommit}, {@link #requestAbort}).
 */
@Repository
public class ReshardingOperationStore {
    private static final RowMapper<ReshardingOperation> OPERATION = (rs, n) -> ReshardingOperation.fromBson(BsonBytes.decode(rs.getBytes("document")));
    private static final String NOT_DONE = "state <> 'done'";

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    public ReshardingOperationStore(JdbcClient jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    /** A document and whether the call created it. */
    public record Started(ReshardingOperation operation, boolean created) {}

    /**
     * The collection's operation for {@code initial}'s request: the unfinished one with an equal request (to join), the
     * quiesced one with an equal request (its outcome stands), or {@code initial}, inserted. A quiesced operation of
     * another request is marked done first: it no longer holds the collection.
     *
     * @throws CommandException ReshardCollectionInProgress (338) while an unfinished operation of another request
     *                          reshards the collection
     */
    public Started create(ReshardingOperation initial) {
        return tx.execute(status -> {
            jdbc.sql("SELECT pg_advisory_xact_lock(hashtext(?))").param("resharding:" + initial.namespace().full()).query().singleValue();
            Optional<ReshardingOperation> existing = find(initial.namespace());
            if (existing.isPresent()) {
                ReshardingOperation other = existing.get();
                if (other.request().equals(initial.request())) {
                    return new Started(other, false);
                }
                if (other.state() != CoordinatorState.QUIESCED) {
                    throw new CommandException(ErrorCode.ReshardCollectionInProgress, "a resharding of " + initial.namespace().full()
                            + " to " + other.request().key().toJson() + " (" + other.id() + ") is " + other.state().value()
                            + "; wait for it to end or abort it (abortReshardCollection)");
                }
                markDone(other);
            }
            jdbc.sql("INSERT INTO resharding_operations (id, namespace, state, document) VALUES (?, ?, ?, ?)")
                    .params(initial.id(), initial.namespace().full(), initial.state().value(), BsonBytes.encode(initial.toBson())).update();
            return new Started(initial, true);
        });
    }

    /**
     * Makes the caller the one writer of document {@code id}.
     *
     * @return the generation to pass to {@link #save}
     * @throws CommandException NoSuchReshardCollection (339) when there is no such document
     */
    public long claim(UUID id) {
        return jdbc.sql("UPDATE resharding_operations SET generation = generation + 1 WHERE id = ? RETURNING generation").param(id)
                .query(Long.class).optional()
                .orElseThrow(() -> new CommandException(ErrorCode.NoSuchReshardCollection, "no resharding operation " + id));
    }

    /**
     * Persists {@code reached}, as the writer of {@code generation}.
     *
     * @throws Superseded when a newer coordinator claimed the document
     */
    public void save(ReshardingOperation reached, long generation) {
        int rows = jdbc.sql("UPDATE resharding_operations SET state = ?, document = ?, updated_at = now() WHERE id = ? AND generation = ?")
                .params(reached.state().value(), BsonBytes.encode(reached.toBson()), reached.id(), generation).update();
        if (rows == 0) {
            throw superseded(reached.id());
        }
    }

    /**
     * Persists the commit decision ({@code committing}) unless an abort was requested first.
     *
     * @param committing the document at {@link CoordinatorState#COMMITTING}
     * @return whether the decision was persisted; false: an abort was requested, the operation aborts
     * @throws Superseded when a newer coordinator claimed the document
     */
    public boolean decideCommit(ReshardingOperation committing, long generation) {
        return tx.execute(status -> {
            Boolean abort = jdbc.sql("SELECT abort_requested FROM resharding_operations WHERE id = ? AND generation = ? FOR UPDATE")
                    .params(committing.id(), generation).query(Boolean.class).optional().orElseThrow(() -> superseded(committing.id()));
            if (abort) {
                return false;
            }
            save(committing, generation);
            return true;
        });
    }

    /**
     * Asks the unfinished operation of {@code namespace} to abort (abortReshardCollection); the coordinator sees it at its
     * next check ({@link #abortRequested}).
     *
     * @return the operation asked
     * @throws CommandException NoSuchReshardCollection (339) when no operation reshards the collection;
     *                          ReshardCollectionCommitted (340) when its commit decision is persisted
     */
    public ReshardingOperation requestAbort(Namespace namespace) {
        return tx.execute(status -> {
            ReshardingOperation operation = jdbc.sql("SELECT document FROM resharding_operations WHERE namespace = ? AND " + NOT_DONE + " FOR UPDATE")
                    .param(namespace.full()).query(OPERATION).optional()
                    .filter(o -> o.state() != CoordinatorState.QUIESCED || o.abortReason() == null)
                    .orElseThrow(() -> new CommandException(ErrorCode.NoSuchReshardCollection, "no resharding of " + namespace.full() + " is running"));
            if (!operation.state().beforeDecision() && operation.state() != CoordinatorState.ABORTING) {
                throw new CommandException(ErrorCode.ReshardCollectionCommitted, "the resharding of " + namespace.full() + " ("
                        + operation.id() + ") is " + operation.state().value() + ": its commit was decided and cannot be aborted");
            }
            jdbc.sql("UPDATE resharding_operations SET abort_requested = true WHERE id = ?").param(operation.id()).update();
            return operation;
        });
    }

    /** Whether abortReshardCollection asked operation {@code id} to abort. */
    public boolean abortRequested(UUID id) {
        return jdbc.sql("SELECT abort_requested FROM resharding_operations WHERE id = ?").param(id).query(Boolean.class).optional().orElse(false);
    }

    /** Document {@code id}, if any. */
    public Optional<ReshardingOperation> find(UUID id) {
        return jdbc.sql("SELECT document FROM resharding_operations WHERE id = ?").param(id).query(OPERATION).optional();
    }

    /** The operation that holds {@code namespace} (any state but done), if any. */
    public Optional<ReshardingOperation> find(Namespace namespace) {
        return jdbc.sql("SELECT document FROM resharding_operations WHERE namespace = ? AND " + NOT_DONE).param(namespace.full())
                .query(OPERATION).optional();
    }

    /** Every operation still to drive (neither quiesced nor done), oldest first: what a restarted coordinator resumes. */
    public List<ReshardingOperation> listUnfinished() {
        return jdbc.sql("SELECT document FROM resharding_operations WHERE state NOT IN ('quiesced', 'done') ORDER BY created_at")
                .query(OPERATION).list();
    }

    /** Every operation that holds its collection (any state but done), oldest first. */
    public List<ReshardingOperation> listActive() {
        return jdbc.sql("SELECT document FROM resharding_operations WHERE " + NOT_DONE + " ORDER BY created_at").query(OPERATION).list();
    }

    /**
     * Marks done every operation quiesced longer than {@code quiescePeriod} (MongoDB's
     * {@code reshardingCoordinatorQuiescePeriodMillis}): a retried command no longer gets their outcome.
     *
     * @return how many were marked
     */
    public int forgetQuiescedOlderThan(Duration quiescePeriod) {
        List<ReshardingOperation> old = jdbc.sql("SELECT document FROM resharding_operations WHERE state = 'quiesced'"
                        + " AND updated_at < now() - make_interval(secs => ?)")
                .param(quiescePeriod.toMillis() / 1000.0).query(OPERATION).list();
        old.forEach(this::markDone);
        return old.size();
    }

    private void markDone(ReshardingOperation operation) {
        jdbc.sql("UPDATE resharding_operations SET state = 'done', document = ?, updated_at = now() WHERE id = ?")
                .params(BsonBytes.encode(operation.withState(CoordinatorState.DONE).toBson()), operation.id()).update();
    }

    private static Superseded superseded(UUID id) {
        return new Superseded("resharding operation " + id + " was claimed by a newer coordinator; this one stops writing it");
    }

    /** A write of a coordinator that no longer owns the document: it stops, the newer one decides. */
    public static final class Superseded extends IllegalStateException {
        Superseded(String message) {
            super(message);
        }
    }
}
