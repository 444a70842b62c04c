package dev.shardstore.router.command;

import static dev.shardstore.contracts.bson.CommandArgs.require;
import static dev.shardstore.contracts.bson.CommandArgs.requireString;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.routing.PrimaryShardRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code insert} (MongoDB's shape: {@code {insert: coll, documents: [...], ordered: true}} →
 * {@code {n, writeErrors?, ok: 1}}).
 *
 * <p>The whole command is refused before anything is written when {@code documents} is not a
 * non-empty array of at most 100,000 documents (the error names the offending index). A document
 * without {@code _id} gets an ObjectId placed first, here rather than on the shard, so routing by
 * {@code _id} sees it. A document over 16 MiB becomes a {@code BSONObjectTooLarge} (10334) write
 * error at its index; with {@code ordered: true} nothing after it is written.
 */
@Component
public class InsertCommand implements CommandHandler {
    /** MongoDB's maxWriteBatchSize. */
    static final int MAX_BATCH = 100_000;

    private final PrimaryShardRouter router;

    public InsertCommand(PrimaryShardRouter router) {
        this.router = router;
    }

    @Override
    public String name() {
        return "insert";
    }

    @Override
    public BsonDocument run(String db, BsonDocument command) {
        Namespaces.checkUserDatabase(db, "insert");
        String collection = requireString(command, "insert");
        List<BsonDocument> documents = documents(command);
        boolean ordered = command.getBoolean("ordered", BsonBoolean.TRUE).getValue();

        List<BsonDocument> toSend = new ArrayList<>(documents.size());
        List<Integer> originalIndex = new ArrayList<>(documents.size());
        List<BsonDocument> writeErrors = new ArrayList<>();
        for (int i = 0; i < documents.size(); i++) {
            BsonDocument doc = withId(documents.get(i));
            int size = BsonBytes.encode(doc).length;
            if (size > BsonBytes.MAX_DOCUMENT_SIZE) {
                writeErrors.add(writeError(i, ErrorCode.BSONObjectTooLarge,
                        "document at index " + i + " is " + size + " bytes, over the limit of " + BsonBytes.MAX_DOCUMENT_SIZE));
                if (ordered) {
                    break;
                }
                continue;
            }
            toSend.add(doc);
            originalIndex.add(i);
        }

        int inserted = 0;
        if (!toSend.isEmpty()) {
            BsonDocument forwarded = command.clone();
            forwarded.put("documents", new BsonArray(toSend));
            BsonDocument reply = router.run(db, forwarded, true).orElseThrow().reply();
            if (ErrorReplies.isError(reply)) {
                throw ErrorReplies.toException(reply);
            }
            inserted = reply.getNumber("n").intValue();
            for (BsonValue error : reply.getArray("writeErrors", new BsonArray())) {
                BsonDocument remapped = error.asDocument().clone();
                remapped.put("index", new BsonInt32(originalIndex.get(remapped.getNumber("index").intValue())));
                writeErrors.add(remapped);
            }
        }
        if (ordered && writeErrors.size() > 1) {
            // Ordered stops at the first failure: keep the earliest of the router's and the shard's.
            writeErrors.sort(Comparator.comparingInt(e -> e.getNumber("index").intValue()));
            writeErrors = List.of(writeErrors.getFirst());
        }
        BsonDocument reply = new BsonDocument("n", new BsonInt32(inserted));
        if (!writeErrors.isEmpty()) {
            writeErrors.sort(Comparator.comparingInt(e -> e.getNumber("index").intValue()));
            reply.append("writeErrors", new BsonArray(writeErrors));
        }
        return Replies.ok(reply);
    }

    private static List<BsonDocument> documents(BsonDocument command) {
        BsonValue value = require(command, "documents");
        if (!value.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'documents' must be an array of documents, not "
                    + value.getBsonType().name().toLowerCase());
        }
        List<BsonValue> values = value.asArray().getValues();
        if (values.isEmpty() || values.size() > MAX_BATCH) {
            throw new CommandException(ErrorCode.InvalidLength,
                    "write batch sizes must be between 1 and " + MAX_BATCH + "; got " + values.size() + " documents");
        }
        List<BsonDocument> docs = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            if (!values.get(i).isDocument()) {
                throw new CommandException(ErrorCode.TypeMismatch, "documents." + i + " must be a document, not "
                        + values.get(i).getBsonType().name().toLowerCase() + "; nothing was inserted");
            }
            docs.add(values.get(i).asDocument());
        }
        return docs;
    }

    private static BsonDocument withId(BsonDocument doc) {
        if (doc.containsKey("_id")) {
            return doc;
        }
        BsonDocument withId = new BsonDocument("_id", new BsonObjectId());
        withId.putAll(doc);
        return withId;
    }

    private static BsonDocument writeError(int index, ErrorCode code, String message) {
        return new BsonDocument("index", new BsonInt32(index))
                .append("code", new BsonInt32(code.code()))
                .append("codeName", new BsonString(code.codeName()))
                .append("errmsg", new BsonString(message));
    }
}
