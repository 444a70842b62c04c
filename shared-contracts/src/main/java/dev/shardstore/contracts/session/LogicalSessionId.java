package dev.shardstore.contracts.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.jspecify.annotations.Nullable;

/**
 * A logical session id, MongoDB's {@code lsid: {id: <UUID, BinData subtype 4>, uid?: <BinData, 32-byte SHA-256 of
 * the user>}} (mongo/src/mongo/db/s/README.md "Logical Sessions"). Two ids are equal when both parts are; {@code uid} is absent without
 * authentication. Immutable: the {@code uid} bytes are copied in and out.
 *
 * @param id  the session's UUID
 * @param uid the user's digest, or null
 */
public record LogicalSessionId(UUID id, byte @Nullable [] uid) {
    /** The command field. */
    public static final String FIELD = "lsid";

    // a full canonical constructor, not a compact one: javac writes the type annotation of a compact constructor's
    // implicit parameters into no class file, so callers elsewhere would see uid as non-null
    public LogicalSessionId(UUID id, byte @Nullable [] uid) {
        if (id == null) {
            throw new IllegalArgumentException("id is required");
        }
        this.id = id;
        this.uid = uid == null ? null : uid.clone();
    }

    @Override
    public byte @Nullable [] uid() {
        return uid == null ? null : uid.clone();
    }

    /**
     * Parses the value of a command's {@code lsid} field.
     *
     * @param path the field as errors name it ({@code lsid})
     * @throws CommandException TypeMismatch (14) when it is not a document, {@code id} is not a UUID (BinData subtype
     *                          4) or {@code uid} not BinData; Location40414 when {@code id} is missing; Location40415
     *                          for another field (MongoDB's IDL errors)
     */
    public static LogicalSessionId parse(BsonValue value, String path) {
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be a document, not " + value.getBsonType());
        }
        UUID id = null;
        byte[] uid = null;
        for (Map.Entry<String, BsonValue> field : value.asDocument().entrySet()) {
            BsonValue v = field.getValue();
            switch (field.getKey()) {
                case "id" -> {
                    if (!(v instanceof BsonBinary binary && binary.getType() == BsonBinarySubType.UUID_STANDARD.getValue()
                            && binary.getData().length == 16)) {
                        throw new CommandException(ErrorCode.TypeMismatch, "'" + path + ".id' must be a UUID (BinData subtype 4)");
                    }
                    id = binary.asUuid();
                }
                case "uid" -> {
                    if (!v.isBinary()) {
                        throw new CommandException(ErrorCode.TypeMismatch, "'" + path + ".uid' must be BinData");
                    }
                    uid = v.asBinary().getData();
                }
                default -> throw new CommandException(ErrorCode.Location40415, "BSON field '" + path + "." + field.getKey()
                        + "' is an unknown field.");
            }
        }
        if (id == null) {
            throw new CommandException(ErrorCode.Location40414, "BSON field '" + path + ".id' is missing but a required field");
        }
        return new LogicalSessionId(id, uid);
    }

    /** A new session id with a random UUID and no user, as {@code startSession} hands out. */
    public static LogicalSessionId random() {
        return new LogicalSessionId(UUID.randomUUID(), null);
    }

    /** {@code {id: UUID, uid?: BinData}}. */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("id", new BsonBinary(id, UuidRepresentation.STANDARD));
        if (uid != null) {
            doc.append("uid", new BsonBinary(uid));
        }
        return doc;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogicalSessionId other && id.equals(other.id) && Arrays.equals(uid, other.uid);
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + Arrays.hashCode(uid);
    }

    @Override
    public String toString() {
        return toBson().toJson();
    }
}
