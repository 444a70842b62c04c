package dev.shardstore.resharding.coordinator;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.jspecify.annotations.Nullable;

/**
 * The resharding coordinator's state document (MongoDB's {@code ReshardingCoordinatorDocument} in
 * {@code config.reshardingOperations}): what the operation is, the state it reached and what it has fixed on the way.
 * Immutable; each step makes a new one, and the coordinator persists it before acting on it.
 *
 * @param id             the resharding UUID ({@code _id}); the temporary collection is {@code db.system.resharding.<id>}
 * @param request        the command's arguments
 * @param state          the state reached
 * @param donorShards    the shards that own chunks of the collection now; empty until initialized
 * @param recipientShards the shards the new chunks are spread over; empty until initialized
 * @param newChunks      the new key's chunks and their recipients ({@link ReshardingSplitPolicy}); empty until initialized
 * @param cloneTimestamp the donors' highest {@code minFetchTimestamp}, fixed when preparing-to-donate ends; null before
 * @param abortReason    {@code {code, codeName, errmsg}} of the error that aborts the operation; null unless aborting or
 *                       quiesced after an abort
 */
public record ReshardingOperation(UUID id, ReshardingRequest request, CoordinatorState state, List<String> donorShards,
        List<String> recipientShards, List<ReshardedChunk> newChunks, @Nullable BsonTimestamp cloneTimestamp,
        @Nullable BsonDocument abortReason) {
    public ReshardingOperation {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(state, "state");
        donorShards = List.copyOf(donorShards);
        recipientShards = List.copyOf(recipientShards);
        newChunks = List.copyOf(newChunks);
        abortReason = abortReason == null ? null : abortReason.clone();
    }

    /** A new operation of {@code request}, initializing, with nothing fixed yet. */
    public static ReshardingOperation start(UUID id, ReshardingRequest request) {
        return new ReshardingOperation(id, request, CoordinatorState.INITIALIZING, List.of(), List.of(), List.of(), null, null);
    }

    /** The collection being resharded. */
    public Namespace namespace() {
        return request.namespace();
    }

    /** The temporary collection the recipients fill: {@code db.system.resharding.<uuid>} (MongoDB's name). */
    public Namespace temporaryNamespace() {
        return new Namespace(namespace().db(), "system.resharding." + id);
    }

    @Override
    public @Nullable BsonDocument abortReason() {
        return abortReason == null ? null : abortReason.clone();
    }

    /** This document at {@code next}. */
    public ReshardingOperation withState(CoordinatorState next) {
        return new ReshardingOperation(id, request, next, donorShards, recipientShards, newChunks, cloneTimestamp, abortReason);
    }

    /** This document with its participants and the new key's chunks fixed. */
    public ReshardingOperation withParticipants(List<String> donors, List<String> recipients, List<ReshardedChunk> chunks) {
        return new ReshardingOperation(id, request, state, donors, recipients, chunks, cloneTimestamp, abortReason);
    }

    /** This document with its {@code cloneTimestamp} fixed. */
    public ReshardingOperation withCloneTimestamp(BsonTimestamp timestamp) {
        return new ReshardingOperation(id, request, state, donorShards, recipientShards, newChunks, timestamp, abortReason);
    }

    /** This document aborting because of {@code error}. */
    public ReshardingOperation aborting(CommandException error) {
        BsonDocument reason = new BsonDocument("code", new BsonInt32(error.code().code()))
                .append("codeName", new BsonString(error.code().name()))
                .append("errmsg", new BsonString(error.getMessage() == null ? error.code().name() : error.getMessage()));
        return new ReshardingOperation(id, request, CoordinatorState.ABORTING, donorShards, recipientShards, newChunks, cloneTimestamp, reason);
    }

    /**
     * The outcome of a quiesced operation, for the command that waited for it or retried it.
     *
     * @throws CommandException the abort's reason when it aborted (its code: ReshardCollectionAborted (341) for an abort
     *                          asked for or a failed verification, ReshardingCriticalSectionTimeout (342), a
     *                          participant's error)
     */
    public void requireCommitted() {
        if (abortReason != null) {
            // MongoDB's reshardCollection fails with the abort's reason: ReshardCollectionAborted for an abort that was
            // asked for or a failed verification, the participant's or the write block's own code otherwise
            ErrorCode code = abortReason.isNumber("code") ? ErrorCode.ofNumber(abortReason.getNumber("code").intValue())
                    : ErrorCode.ReshardCollectionAborted;
            throw new CommandException(code, "the resharding of " + namespace().full() + " (" + id
                    + ") was aborted: " + abortReason.getString("errmsg").getValue());
        }
    }

    /**
     * The document as MongoDB shapes {@code config.reshardingOperations}: {@code {_id, ns, reshardingKey,
     * numInitialChunks, forceRedistribution, state, donorShards: [{id}], recipientShards: [{id}],
     * newChunks: [{recipientShardId, min, max}], cloneTimestamp?, abortReason?}}.
     */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("_id", new BsonBinary(id, UuidRepresentation.STANDARD))
                .append("ns", new BsonString(namespace().full()))
                .append("reshardingKey", request.key())
                .append("numInitialChunks", new BsonInt32(request.numInitialChunks()))
                .append("forceRedistribution", BsonBoolean.valueOf(request.forceRedistribution()))
                .append("state", new BsonString(state.value()))
                .append("donorShards", shards(donorShards))
                .append("recipientShards", shards(recipientShards))
                .append("newChunks", new BsonArray(newChunks.stream().map(c -> (BsonValue) c.toBson()).toList()));
        if (cloneTimestamp != null) {
            doc.append("cloneTimestamp", cloneTimestamp);
        }
        if (abortReason != null) {
            doc.append("abortReason", abortReason.clone());
        }
        return doc;
    }

    /**
     * The document {@link #toBson} wrote.
     *
     * @throws IllegalArgumentException when a field is missing or of another type
     */
    public static ReshardingOperation fromBson(BsonDocument doc) {
        try {
            ReshardingRequest request = new ReshardingRequest(Namespace.parse(doc.getString("ns").getValue()), doc.getDocument("reshardingKey"),
                    doc.getInt32("numInitialChunks").getValue(), doc.getBoolean("forceRedistribution").getValue());
            BsonValue clone = doc.get("cloneTimestamp");
            BsonValue reason = doc.get("abortReason");
            return new ReshardingOperation(doc.getBinary("_id").asUuid(UuidRepresentation.STANDARD), request,
                    CoordinatorState.of(doc.getString("state").getValue()), ids(doc.getArray("donorShards")), ids(doc.getArray("recipientShards")),
                    doc.getArray("newChunks", new BsonArray()).stream().map(c -> ReshardedChunk.fromBson(c.asDocument())).toList(),
                    clone == null ? null : clone.asTimestamp(), reason == null ? null : reason.asDocument());
        } catch (org.bson.BsonInvalidOperationException e) {
            throw new IllegalArgumentException("malformed resharding state document " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }

    private static BsonArray shards(List<String> names) {
        return new BsonArray(names.stream().map(name -> (BsonValue) new BsonDocument("id", new BsonString(name))).toList());
    }

    private static List<String> ids(BsonArray shards) {
        return shards.stream().map(s -> s.asDocument().getString("id").getValue()).toList();
    }
}
