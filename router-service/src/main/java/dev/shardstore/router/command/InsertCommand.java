package dev.shardstore.router.command;


import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
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
    private final VersionedRouter router;

    public InsertCommand(VersionedRouter router) {
        this.router = router;
    }

    @Override
    public String name() {
        return "insert";
    }

    @Override
    public BsonDocument run(String db, BsonDocument command) {
        Namespaces.checkUserDatabase(db, "insert");
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        List<BsonDocument> documents = documents(args);
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);

        List<RawBsonDocument> toSend = new ArrayList<>(documents.size());
        List<Integer> originalIndex = new ArrayList<>(documents.size());
        List<BsonDocument> writeErrors = new ArrayList<>();
        for (int i = 0; i < documents.size(); i++) {
            RawBsonDocument doc = BsonBytes.toRaw(withId(documents.get(i)));
            int size = BsonBytes.size(doc);
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
            BsonDocument forwarded = new BsonDocument();
            forwarded.putAll(command);
            forwarded.put("documents", new BsonArray(toSend));
            BsonDocument reply = router.run(db, collection, true,
                    routing -> router.send(routing, routing.database().primary(), db, forwarded)).orElseThrow();
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
        writeErrors.sort(Comparator.comparingInt(e -> e.getNumber("index").intValue()));
        if (ordered && writeErrors.size() > 1) {
            // Ordered stops at the first failure: keep the earliest of the router's and the shard's.
            writeErrors.subList(1, writeErrors.size()).clear();
        }
        BsonDocument reply = new BsonDocument("n", new BsonInt32(inserted));
        if (!writeErrors.isEmpty()) {
            reply.append("writeErrors", new BsonArray(writeErrors));
        }
        return Replies.ok(reply);
    }

    /** Every entry of {@code documents}, each a document, or the whole command is refused naming the index. */
    private static List<BsonDocument> documents(CommandArgs args) {
        BsonArray batch = args.requiredBatch("documents");
        List<BsonDocument> docs = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            docs.add(args.document(batch.get(i), "documents." + i));
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
