package dev.shardstore.cluster.crudspec;

import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.client.AggregateIterable;
import com.mongodb.client.ClientSession;
import com.mongodb.client.FindIterable;
import com.mongodb.MongoNamespace;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCluster;
import com.mongodb.client.model.bulk.ClientBulkWriteOptions;
import com.mongodb.client.model.bulk.ClientDeleteManyOptions;
import com.mongodb.client.model.bulk.ClientDeleteOneOptions;
import com.mongodb.client.model.bulk.ClientBulkWriteResult;
import com.mongodb.client.model.bulk.ClientNamespacedWriteModel;
import com.mongodb.client.model.bulk.ClientReplaceOneOptions;
import com.mongodb.client.model.bulk.ClientUpdateManyOptions;
import com.mongodb.client.model.bulk.ClientUpdateOneOptions;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.CountOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.DeleteManyModel;
import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.DeleteOptions;
import com.mongodb.client.model.EstimatedDocumentCountOptions;
import com.mongodb.client.model.FindOneAndDeleteOptions;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.InsertOneOptions;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateManyModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.InsertManyResult;
import com.mongodb.client.result.InsertOneResult;
import com.mongodb.client.result.UpdateResult;
import com.mongodb.client.model.Collation;
import com.mongodb.client.model.CollationAlternate;
import com.mongodb.client.model.CollationCaseFirst;
import com.mongodb.client.model.CollationMaxVariable;
import com.mongodb.client.model.CollationStrength;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

/**
 * The unified format's collection and database CRUD operations on the MongoDB Java sync driver: each takes the
 * operation's {@code arguments} document and returns its result as BSON in the shapes the CRUD specification
 * names (InsertOneResult {@code {insertedId}}, UpdateResult {@code {matchedCount, modifiedCount, upsertedCount,
 * upsertedId}}, BulkWriteResult, ...; an unacknowledged write answers {@code {acknowledged: false}}), or throws
 * what the driver threw. An argument the runner does not know throws {@link Unsupported}, so a test is never
 * run with an option silently dropped. Each operation takes the {@code session} argument's session entity, resolved
 * by the runner (null without one), and runs in it through the driver's {@code ClientSession} overloads.
 */
final class CrudOperations {
    /** An operation or argument outside this runner: the test is reported as a runner gap, not as a server failure. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String what) {
            super(what);
        }
    }

    /**
     * A test that does not apply here, not a failure: the specification tells drivers like this one to skip it, or it
     * needs a test facility the server does not have (a fail point it refuses).
     */
    static final class NotApplicable extends RuntimeException {
        NotApplicable(String why) {
            super(why);
        }
    }

    private CrudOperations() {
    }

    static BsonValue onCollection(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, String name, BsonDocument args) {
        // in a transaction the collection's write concern is not used at all: the transactions tests check just that
        boolean inTransaction = s != null && s.hasActiveTransaction();
        if (name.startsWith("findOneAnd") && !coll.getWriteConcern().isAcknowledged() && !inTransaction) {
            throw new NotApplicable("the Java driver ignores an unacknowledged write concern for " + name
                    + " (the CRUD spec asks such drivers to skip these tests)");
        }
        Args a = new Args(args);
        BsonValue result = switch (name) {
            case "find", "findOne" -> find(coll, s, a, name.equals("findOne"));
            case "aggregate" -> aggregate(s == null ? coll.aggregate(pipeline(a)) : coll.aggregate(s, pipeline(a)), a);
            case "countDocuments" -> countDocuments(coll, s, a);
            case "estimatedDocumentCount" -> estimatedCount(coll, s, a);
            case "count" -> throw new NotApplicable("count: the Java driver has no count helper since 5.0 (the unified format's deprecated operation)");
            case "distinct" -> distinct(coll, s, a);
            case "insertOne" -> insertOne(coll, s, a);
            case "insertMany" -> insertMany(coll, s, a);
            case "deleteOne", "deleteMany" -> delete(coll, s, a, name.equals("deleteOne"));
            case "updateOne", "updateMany" -> update(coll, s, a, name.equals("updateOne"));
            case "replaceOne" -> replaceOne(coll, s, a);
            case "findOneAndUpdate" -> findOneAndUpdate(coll, s, a);
            case "findOneAndReplace" -> findOneAndReplace(coll, s, a);
            case "findOneAndDelete" -> findOneAndDelete(coll, s, a);
            case "bulkWrite" -> bulkWrite(coll, s, a);
            case "createIndex" -> createIndex(coll, s, a);
            case "dropIndex" -> {
                if (s == null) coll.dropIndex(a.string("name")); else coll.dropIndex(s, a.string("name"));
                yield null;
            }
            case "listIndexes" -> new BsonArray(new ArrayList<>((s == null ? coll.listIndexes(BsonDocument.class)
                    : coll.listIndexes(s, BsonDocument.class)).into(new ArrayList<>())));
            default -> throw new Unsupported("collection operation " + name);
        };
        a.requireAllUsed(name);
        return result;
    }

    /**
     * MongoClient-level operations: {@code clientBulkWrite} (the bulkWrite command), with the top-level options
     * {@code ordered}, {@code verboseResults}, {@code comment}, {@code let}, {@code bypassDocumentValidation} and
     * {@code writeConcern} (applied through {@code MongoClient.withWriteConcern}). {@code rawData} (MongoDB 8.2, no
     * Java driver option) and the {@code requests}/{@code {db, coll}} shape of the superseded draft files in
     * {@code new-bulk-write/} are refused as runner gaps.
     */
    static BsonValue onClient(MongoClient client, @Nullable ClientSession s, String name, BsonDocument args) {
        if (!name.equals("clientBulkWrite")) {
            throw new Unsupported("client operation " + name);
        }
        if (args.containsKey("requests")) {
            throw new Unsupported("clientBulkWrite 'requests' (the draft shape of new-bulk-write/: the unified format's argument is 'models')");
        }
        Args a = new Args(args);
        List<ClientNamespacedWriteModel> models = new ArrayList<>();
        for (BsonValue model : a.array("models")) {
            models.add(clientModel(model.asDocument()));
        }
        ClientBulkWriteOptions o = ClientBulkWriteOptions.clientBulkWriteOptions();
        if (a.has("ordered")) o.ordered(a.bool("ordered"));
        if (a.has("verboseResults")) o.verboseResults(a.bool("verboseResults"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        if (a.has("writeConcern") && s != null && s.hasActiveTransaction()) {
            // the spec's drivers refuse an operation's own write concern in a transaction; the Java driver's has none
            // (the client's, which a transaction overrides, is all it sees), so it cannot tell one was given
            throw new NotApplicable("clientBulkWrite writeConcern in a transaction: the Java driver takes the write concern"
                    + " from MongoCluster.withWriteConcern, not from the operation, and cannot refuse it");
        }
        MongoCluster target = a.has("writeConcern") ? client.withWriteConcern(writeConcern(a.doc("writeConcern"))) : client;
        a.requireAllUsed(name);
        return clientBulkResult(s == null ? target.bulkWrite(models, o) : target.bulkWrite(s, models, o));
    }

    /** One model of a client bulk write, with the per-model options the CRUD specification gives it. */
    private static ClientNamespacedWriteModel clientModel(BsonDocument model) {
        String kind = model.getFirstKey();
        Args m = new Args(model.getDocument(kind));
        BsonValue namespace = m.take("namespace");
        if (!namespace.isString()) {
            throw new Unsupported("clientBulkWrite namespace " + namespace + " (the draft {db, coll} shape; the unified format's is \"db.coll\")");
        }
        MongoNamespace ns = new MongoNamespace(namespace.asString().getValue());
        ClientNamespacedWriteModel out = switch (kind) {
            case "insertOne" -> ClientNamespacedWriteModel.insertOne(ns, m.doc("document"));
            case "deleteOne" -> {
                ClientDeleteOneOptions o = ClientDeleteOneOptions.clientDeleteOneOptions();
                collationAndHint(m, o::collation, o::hint, o::hintString);
                yield ClientNamespacedWriteModel.deleteOne(ns, m.doc("filter"), o);
            }
            case "deleteMany" -> {
                ClientDeleteManyOptions o = ClientDeleteManyOptions.clientDeleteManyOptions();
                collationAndHint(m, o::collation, o::hint, o::hintString);
                yield ClientNamespacedWriteModel.deleteMany(ns, m.doc("filter"), o);
            }
            case "replaceOne" -> {
                ClientReplaceOneOptions o = ClientReplaceOneOptions.clientReplaceOneOptions();
                if (m.has("upsert")) o.upsert(m.bool("upsert"));
                collationAndHint(m, o::collation, o::hint, o::hintString);
                if (m.has("sort")) o.sort(m.doc("sort"));
                yield ClientNamespacedWriteModel.replaceOne(ns, m.doc("filter"), m.doc("replacement"), o);
            }
            case "updateOne" -> {
                ClientUpdateOneOptions o = ClientUpdateOneOptions.clientUpdateOneOptions();
                upsertAndArrayFilters(m, o::upsert, o::arrayFilters);
                collationAndHint(m, o::collation, o::hint, o::hintString);
                if (m.has("sort")) o.sort(m.doc("sort"));
                BsonValue update = m.take("update");
                yield update.isArray() ? ClientNamespacedWriteModel.updateOne(ns, m.doc("filter"), documents(update.asArray().getValues()), o)
                        : ClientNamespacedWriteModel.updateOne(ns, m.doc("filter"), update.asDocument(), o);
            }
            case "updateMany" -> {
                ClientUpdateManyOptions o = ClientUpdateManyOptions.clientUpdateManyOptions();
                upsertAndArrayFilters(m, o::upsert, o::arrayFilters);
                collationAndHint(m, o::collation, o::hint, o::hintString);
                BsonValue update = m.take("update");
                yield update.isArray() ? ClientNamespacedWriteModel.updateMany(ns, m.doc("filter"), documents(update.asArray().getValues()), o)
                        : ClientNamespacedWriteModel.updateMany(ns, m.doc("filter"), update.asDocument(), o);
            }
            default -> throw new Unsupported("clientBulkWrite model " + kind);
        };
        m.requireAllUsed("clientBulkWrite " + kind);
        return out;
    }

    /*
     * The driver's per-model option types share only package-private interfaces, hence setters passed one by one.
     */
    private static void collationAndHint(Args m, Consumer<Collation> collation, Consumer<Bson> hint, Consumer<String> hintString) {
        if (m.has("collation")) collation.accept(collation(m.doc("collation")));
        if (m.has("hint")) hint(m, hint, hintString);
    }

    private static void upsertAndArrayFilters(Args m, Consumer<Boolean> upsert, Consumer<List<BsonDocument>> arrayFilters) {
        if (m.has("upsert")) upsert.accept(m.bool("upsert"));
        if (m.has("arrayFilters")) arrayFilters.accept(documents(m.array("arrayFilters")));
    }

    private static List<BsonDocument> documents(List<BsonValue> values) {
        return values.stream().map(BsonValue::asDocument).toList();
    }

    /** A client bulk write's result in the unified format's shape (verbose maps only when the driver has them). */
    static BsonDocument clientBulkResult(ClientBulkWriteResult r) {
        if (!r.isAcknowledged()) return unacknowledged();
        BsonDocument out = new BsonDocument("insertedCount", new BsonInt64(r.getInsertedCount()))
                .append("upsertedCount", new BsonInt64(r.getUpsertedCount()))
                .append("matchedCount", new BsonInt64(r.getMatchedCount()))
                .append("modifiedCount", new BsonInt64(r.getModifiedCount()))
                .append("deletedCount", new BsonInt64(r.getDeletedCount()));
        BsonDocument inserts = new BsonDocument();
        BsonDocument updates = new BsonDocument();
        BsonDocument deletes = new BsonDocument();
        r.getVerboseResults().ifPresent(v -> {
            v.getInsertResults().forEach((i, ir) -> inserts.append(String.valueOf(i), new BsonDocument("insertedId", ir.getInsertedId().orElse(BsonNull.VALUE))));
            v.getUpdateResults().forEach((i, ur) -> {
                BsonDocument u = new BsonDocument("matchedCount", new BsonInt64(ur.getMatchedCount()))
                        .append("modifiedCount", new BsonInt64(ur.getModifiedCount()));
                ur.getUpsertedId().ifPresent(id -> u.append("upsertedId", id));
                updates.append(String.valueOf(i), u);
            });
            v.getDeleteResults().forEach((i, dr) -> deletes.append(String.valueOf(i), new BsonDocument("deletedCount", new BsonInt64(dr.getDeletedCount()))));
        });
        return out.append("insertResults", inserts).append("updateResults", updates).append("deleteResults", deletes);
    }

    static BsonValue onDatabase(MongoDatabase db, @Nullable ClientSession s, String name, BsonDocument args) {
        Args a = new Args(args);
        BsonValue result = switch (name) {
            case "aggregate" -> aggregate(s == null ? db.aggregate(pipeline(a), BsonDocument.class)
                    : db.aggregate(s, pipeline(a), BsonDocument.class), a);
            case "dropCollection" -> {
                MongoCollection<BsonDocument> coll = db.getCollection(a.string("collection"), BsonDocument.class);
                if (s == null) coll.drop(); else coll.drop(s);
                yield null;
            }
            case "createCollection" -> {
                CreateCollectionOptions options = new CreateCollectionOptions();
                String coll = a.string("collection");
                if (s == null) db.createCollection(coll, options); else db.createCollection(s, coll, options);
                yield null;
            }
            case "runCommand" -> {
                a.take("commandName");
                BsonDocument command = a.doc("command");
                // without the argument, the overloads without one: a transaction's read preference then applies
                ReadPreference readPreference = a.has("readPreference") ? readPreference(a.doc("readPreference")) : null;
                if (readPreference == null) {
                    yield s == null ? db.runCommand(command, BsonDocument.class) : db.runCommand(s, command, BsonDocument.class);
                }
                yield s == null ? db.runCommand(command, readPreference, BsonDocument.class)
                        : db.runCommand(s, command, readPreference, BsonDocument.class);
            }
            default -> throw new Unsupported("database operation " + name);
        };
        a.requireAllUsed(name);
        return result;
    }

    private static List<BsonDocument> pipeline(Args a) {
        return a.array("pipeline").stream().map(BsonValue::asDocument).toList();
    }

    private static BsonValue find(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a, boolean one) {
        BsonDocument filter = a.docOr("filter", new BsonDocument());
        FindIterable<BsonDocument> it = s == null ? coll.find(filter) : coll.find(s, filter);
        if (a.has("sort")) it.sort(a.doc("sort"));
        if (a.has("projection")) it.projection(a.doc("projection"));
        if (a.has("skip")) it.skip(a.integer("skip"));
        if (a.has("limit")) it.limit(a.integer("limit"));
        if (a.has("batchSize")) it.batchSize(a.integer("batchSize"));
        if (a.has("comment")) it.comment(a.take("comment"));
        if (a.has("let")) it.let(a.doc("let"));
        if (a.has("collation")) it.collation(collation(a.doc("collation")));
        if (a.has("allowDiskUse")) it.allowDiskUse(a.bool("allowDiskUse"));
        if (a.has("maxTimeMS")) it.maxTime(a.integer("maxTimeMS"), TimeUnit.MILLISECONDS);
        if (a.has("min")) it.min(a.doc("min"));
        if (a.has("max")) it.max(a.doc("max"));
        if (a.has("returnKey")) it.returnKey(a.bool("returnKey"));
        if (a.has("showRecordId")) it.showRecordId(a.bool("showRecordId"));
        if (a.has("hint")) hint(a, it::hint, it::hintString);
        if (one) {
            BsonDocument first = it.first();
            return first;
        }
        return new BsonArray(new ArrayList<>(it.into(new ArrayList<>())));
    }

    private static BsonValue aggregate(AggregateIterable<BsonDocument> it, Args a) {
        if (a.has("batchSize")) it.batchSize(a.integer("batchSize"));
        if (a.has("allowDiskUse")) it.allowDiskUse(a.bool("allowDiskUse"));
        if (a.has("comment")) it.comment(a.take("comment"));
        if (a.has("let")) it.let(a.doc("let"));
        if (a.has("collation")) it.collation(collation(a.doc("collation")));
        if (a.has("maxTimeMS")) it.maxTime(a.integer("maxTimeMS"), TimeUnit.MILLISECONDS);
        if (a.has("bypassDocumentValidation")) it.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        if (a.has("hint")) hint(a, it::hint, it::hintString);
        return new BsonArray(new ArrayList<>(it.into(new ArrayList<>())));
    }

    private static BsonValue countDocuments(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        CountOptions o = new CountOptions();
        if (a.has("skip")) o.skip(a.integer("skip"));
        if (a.has("limit")) o.limit(a.integer("limit"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("collation")) o.collation(collation(a.doc("collation")));
        if (a.has("maxTimeMS")) o.maxTime(a.integer("maxTimeMS"), TimeUnit.MILLISECONDS);
        if (a.has("hint")) hint(a, o::hint, o::hintString);
        BsonDocument filter = a.doc("filter");
        return new BsonInt64(s == null ? coll.countDocuments(filter, o) : coll.countDocuments(s, filter, o));
    }

    private static BsonValue estimatedCount(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        if (s != null) {
            throw new Unsupported("estimatedDocumentCount with a session (the Java driver has no such overload)");
        }
        EstimatedDocumentCountOptions o = new EstimatedDocumentCountOptions();
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("maxTimeMS")) o.maxTime(a.integer("maxTimeMS"), TimeUnit.MILLISECONDS);
        return new BsonInt64(coll.estimatedDocumentCount(o));
    }

    private static BsonValue distinct(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        String field = a.string("fieldName");
        BsonDocument filter = a.doc("filter");
        var it = s == null ? coll.distinct(field, filter, BsonValue.class) : coll.distinct(s, field, filter, BsonValue.class);
        if (a.has("comment")) it.comment(a.take("comment"));
        if (a.has("collation")) it.collation(collation(a.doc("collation")));
        if (a.has("hint")) hint(a, it::hint, it::hintString);
        return new BsonArray(new ArrayList<>(it.into(new ArrayList<>())));
    }

    private static BsonValue insertOne(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        InsertOneOptions o = new InsertOneOptions();
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        BsonDocument doc = a.doc("document");
        InsertOneResult r = s == null ? coll.insertOne(doc, o) : coll.insertOne(s, doc, o);
        if (!r.wasAcknowledged()) return unacknowledged();
        return new BsonDocument("insertedId", r.getInsertedId());
    }

    private static BsonValue insertMany(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        InsertManyOptions o = new InsertManyOptions();
        if (a.has("ordered")) o.ordered(a.bool("ordered"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        List<BsonDocument> docs = a.array("documents").stream().map(BsonValue::asDocument).toList();
        InsertManyResult r = s == null ? coll.insertMany(docs, o) : coll.insertMany(s, docs, o);
        if (!r.wasAcknowledged()) return unacknowledged();
        BsonDocument ids = new BsonDocument();
        r.getInsertedIds().forEach((i, id) -> ids.append(String.valueOf(i), id));
        return new BsonDocument("insertedIds", ids);
    }

    private static BsonValue delete(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a, boolean one) {
        DeleteOptions o = new DeleteOptions();
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("collation")) o.collation(collation(a.doc("collation")));
        if (a.has("hint")) hint(a, o::hint, o::hintString);
        BsonDocument filter = a.doc("filter");
        DeleteResult r = s == null ? (one ? coll.deleteOne(filter, o) : coll.deleteMany(filter, o))
                : (one ? coll.deleteOne(s, filter, o) : coll.deleteMany(s, filter, o));
        if (!r.wasAcknowledged()) return unacknowledged();
        return new BsonDocument("deletedCount", new BsonInt64(r.getDeletedCount()));
    }

    private static UpdateOptions updateOptions(Args a) {
        UpdateOptions o = new UpdateOptions();
        if (a.has("upsert")) o.upsert(a.bool("upsert"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("collation")) o.collation(collation(a.doc("collation")));
        if (a.has("arrayFilters")) o.arrayFilters(a.array("arrayFilters").stream().map(v -> (Bson) v.asDocument()).toList());
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        if (a.has("sort")) o.sort(a.doc("sort"));
        if (a.has("hint")) hint(a, o::hint, o::hintString);
        return o;
    }

    private static BsonValue update(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a, boolean one) {
        BsonDocument filter = a.doc("filter");
        BsonValue update = a.take("update");
        UpdateOptions o = updateOptions(a);
        UpdateResult r;
        if (update.isArray()) {
            List<BsonDocument> pipeline = update.asArray().stream().map(BsonValue::asDocument).toList();
            r = s == null ? (one ? coll.updateOne(filter, pipeline, o) : coll.updateMany(filter, pipeline, o))
                    : (one ? coll.updateOne(s, filter, pipeline, o) : coll.updateMany(s, filter, pipeline, o));
        } else {
            BsonDocument u = update.asDocument();
            r = s == null ? (one ? coll.updateOne(filter, u, o) : coll.updateMany(filter, u, o))
                    : (one ? coll.updateOne(s, filter, u, o) : coll.updateMany(s, filter, u, o));
        }
        return updateResult(r);
    }

    private static BsonValue replaceOne(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        BsonDocument filter = a.doc("filter");
        BsonDocument replacement = a.doc("replacement");
        ReplaceOptions o = new ReplaceOptions();
        if (a.has("upsert")) o.upsert(a.bool("upsert"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("collation")) o.collation(collation(a.doc("collation")));
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        if (a.has("sort")) o.sort(a.doc("sort"));
        if (a.has("hint")) hint(a, o::hint, o::hintString);
        return updateResult(s == null ? coll.replaceOne(filter, replacement, o) : coll.replaceOne(s, filter, replacement, o));
    }

    private static BsonValue updateResult(UpdateResult r) {
        if (!r.wasAcknowledged()) return unacknowledged();
        BsonDocument d = new BsonDocument("matchedCount", new BsonInt64(r.getMatchedCount()))
                .append("modifiedCount", new BsonInt64(r.getModifiedCount()))
                .append("upsertedCount", new BsonInt64(r.getUpsertedId() == null ? 0 : 1));
        if (r.getUpsertedId() != null) d.append("upsertedId", r.getUpsertedId());
        return d;
    }

    private static BsonValue findOneAndUpdate(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        BsonDocument filter = a.doc("filter");
        BsonValue update = a.take("update");
        FindOneAndUpdateOptions o = findAndModifyOptions(a);
        if (a.has("arrayFilters")) o.arrayFilters(a.array("arrayFilters").stream().map(v -> (Bson) v.asDocument()).toList());
        if (update.isArray()) {
            List<BsonDocument> pipeline = update.asArray().stream().map(BsonValue::asDocument).toList();
            return s == null ? coll.findOneAndUpdate(filter, pipeline, o) : coll.findOneAndUpdate(s, filter, pipeline, o);
        }
        return s == null ? coll.findOneAndUpdate(filter, update.asDocument(), o) : coll.findOneAndUpdate(s, filter, update.asDocument(), o);
    }

    private static BsonValue findOneAndReplace(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        BsonDocument filter = a.doc("filter");
        BsonDocument replacement = a.doc("replacement");
        // the replace options are the update options without arrayFilters (left unread, so refused)
        FindOneAndUpdateOptions u = findAndModifyOptions(a);
        FindOneAndReplaceOptions o = new FindOneAndReplaceOptions().upsert(u.isUpsert()).sort(u.getSort())
                .projection(u.getProjection()).returnDocument(u.getReturnDocument()).comment(u.getComment())
                .let(u.getLet()).collation(u.getCollation()).bypassDocumentValidation(u.getBypassDocumentValidation())
                .maxTime(u.getMaxTime(TimeUnit.MILLISECONDS), TimeUnit.MILLISECONDS).hint(u.getHint()).hintString(u.getHintString());
        return s == null ? coll.findOneAndReplace(filter, replacement, o) : coll.findOneAndReplace(s, filter, replacement, o);
    }

    /** The options findOneAndUpdate and findOneAndReplace share. */
    private static FindOneAndUpdateOptions findAndModifyOptions(Args a) {
        FindOneAndUpdateOptions o = new FindOneAndUpdateOptions();
        if (a.has("upsert")) o.upsert(a.bool("upsert"));
        if (a.has("sort")) o.sort(a.doc("sort"));
        if (a.has("projection")) o.projection(a.doc("projection"));
        if (a.has("returnDocument")) o.returnDocument(returnDocument(a));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("collation")) o.collation(collation(a.doc("collation")));
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        if (a.has("maxTimeMS")) o.maxTime(a.integer("maxTimeMS"), TimeUnit.MILLISECONDS);
        if (a.has("hint")) hint(a, o::hint, o::hintString);
        return o;
    }

    private static BsonValue findOneAndDelete(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        BsonDocument filter = a.doc("filter");
        FindOneAndDeleteOptions o = new FindOneAndDeleteOptions();
        if (a.has("sort")) o.sort(a.doc("sort"));
        if (a.has("projection")) o.projection(a.doc("projection"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("collation")) o.collation(collation(a.doc("collation")));
        if (a.has("maxTimeMS")) o.maxTime(a.integer("maxTimeMS"), TimeUnit.MILLISECONDS);
        if (a.has("hint")) hint(a, o::hint, o::hintString);
        return s == null ? coll.findOneAndDelete(filter, o) : coll.findOneAndDelete(s, filter, o);
    }

    private static ReturnDocument returnDocument(Args a) {
        return a.string("returnDocument").equalsIgnoreCase("after") ? ReturnDocument.AFTER : ReturnDocument.BEFORE;
    }

    private static BsonValue bulkWrite(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        List<WriteModel<BsonDocument>> models = new ArrayList<>();
        for (BsonValue request : a.array("requests")) {
            models.add(writeModel(request.asDocument()));
        }
        BulkWriteOptions o = new BulkWriteOptions();
        if (a.has("ordered")) o.ordered(a.bool("ordered"));
        if (a.has("comment")) o.comment(a.take("comment"));
        if (a.has("let")) o.let(a.doc("let"));
        if (a.has("bypassDocumentValidation")) o.bypassDocumentValidation(a.bool("bypassDocumentValidation"));
        return bulkResult(s == null ? coll.bulkWrite(models, o) : coll.bulkWrite(s, models, o));
    }

    /** A BulkWriteResult in the CRUD specification's shape; also the partial result of a bulk write error. */
    static BsonDocument bulkResult(BulkWriteResult r) {
        if (!r.wasAcknowledged()) return unacknowledged();
        BsonDocument inserted = new BsonDocument();
        r.getInserts().forEach(i -> inserted.append(String.valueOf(i.getIndex()), i.getId()));
        BsonDocument upserted = new BsonDocument();
        r.getUpserts().forEach(u -> upserted.append(String.valueOf(u.getIndex()), u.getId()));
        return new BsonDocument("deletedCount", new BsonInt64(r.getDeletedCount()))
                .append("insertedCount", new BsonInt64(r.getInsertedCount()))
                .append("insertedIds", inserted)
                .append("matchedCount", new BsonInt64(r.getMatchedCount()))
                .append("modifiedCount", new BsonInt64(r.getModifiedCount()))
                .append("upsertedCount", new BsonInt64(r.getUpserts().size()))
                .append("upsertedIds", upserted);
    }

    private static WriteModel<BsonDocument> writeModel(BsonDocument request) {
        String kind = request.getFirstKey();
        Args m = new Args(request.getDocument(kind));
        for (String commandLevel : List.of("let", "comment", "bypassDocumentValidation")) {
            // the update options would take them, but a bulk write sends them only from BulkWriteOptions
            if (m.has(commandLevel)) {
                throw new Unsupported("bulkWrite " + kind + " argument " + commandLevel + " (a bulkWrite-level option, not a model's)");
            }
        }
        WriteModel<BsonDocument> model = switch (kind) {
            case "insertOne" -> new InsertOneModel<>(m.doc("document"));
            case "deleteOne", "deleteMany" -> {
                BsonDocument filter = m.doc("filter");
                DeleteOptions o = new DeleteOptions();
                if (m.has("collation")) o.collation(collation(m.doc("collation")));
                if (m.has("hint")) hint(m, o::hint, o::hintString);
                yield kind.equals("deleteOne") ? new DeleteOneModel<>(filter, o) : new DeleteManyModel<>(filter, o);
            }
            case "updateOne", "updateMany" -> {
                BsonDocument filter = m.doc("filter");
                BsonValue update = m.take("update");
                UpdateOptions o = updateOptions(m);
                if (update.isArray()) {
                    List<BsonDocument> p = update.asArray().stream().map(BsonValue::asDocument).toList();
                    yield kind.equals("updateOne") ? new UpdateOneModel<>(filter, p, o) : new UpdateManyModel<>(filter, p, o);
                }
                yield kind.equals("updateOne") ? new UpdateOneModel<>(filter, update.asDocument(), o)
                        : new UpdateManyModel<>(filter, update.asDocument(), o);
            }
            case "replaceOne" -> {
                BsonDocument filter = m.doc("filter");
                BsonDocument replacement = m.doc("replacement");
                ReplaceOptions o = new ReplaceOptions();
                if (m.has("upsert")) o.upsert(m.bool("upsert"));
                if (m.has("collation")) o.collation(collation(m.doc("collation")));
                if (m.has("sort")) o.sort(m.doc("sort"));
                if (m.has("hint")) hint(m, o::hint, o::hintString);
                yield new ReplaceOneModel<>(filter, replacement, o);
            }
            default -> throw new Unsupported("bulkWrite request " + kind);
        };
        m.requireAllUsed("bulkWrite " + kind);
        return model;
    }

    private static BsonValue createIndex(MongoCollection<BsonDocument> coll, @Nullable ClientSession s, Args a) {
        IndexOptions o = new IndexOptions();
        if (a.has("name")) o.name(a.string("name"));
        if (a.has("unique")) o.unique(a.bool("unique"));
        if (a.has("sparse")) o.sparse(a.bool("sparse"));
        BsonDocument keys = a.doc("keys");
        return new BsonString(s == null ? coll.createIndex(keys, o) : coll.createIndex(s, keys, o));
    }

    private static Collation collation(BsonDocument d) {
        Collation.Builder b = Collation.builder().locale(d.getString("locale").getValue());
        if (d.containsKey("strength")) b.collationStrength(CollationStrength.fromInt(d.getNumber("strength").intValue()));
        if (d.containsKey("caseLevel")) b.caseLevel(d.getBoolean("caseLevel").getValue());
        if (d.containsKey("caseFirst")) b.collationCaseFirst(CollationCaseFirst.fromString(d.getString("caseFirst").getValue()));
        if (d.containsKey("numericOrdering")) b.numericOrdering(d.getBoolean("numericOrdering").getValue());
        if (d.containsKey("alternate")) b.collationAlternate(CollationAlternate.fromString(d.getString("alternate").getValue()));
        if (d.containsKey("maxVariable")) b.collationMaxVariable(CollationMaxVariable.fromString(d.getString("maxVariable").getValue()));
        if (d.containsKey("backwards")) b.backwards(d.getBoolean("backwards").getValue());
        return b.build();
    }

    private static void hint(Args a, Consumer<Bson> byDoc, Consumer<String> byName) {
        BsonValue hint = a.take("hint");
        if (hint.isString()) {
            byName.accept(hint.asString().getValue());
        } else {
            byDoc.accept(hint.asDocument());
        }
    }

    /** A read preference entity option: {@code mode} and {@code maxStalenessSeconds}; anything else is a runner gap. */
    static ReadPreference readPreference(BsonDocument d) {
        for (String key : d.keySet()) {
            if (!key.equals("mode") && !key.equals("maxStalenessSeconds")) {
                throw new CrudOperations.Unsupported("readPreference option " + key);
            }
        }
        String mode = d.getString("mode").getValue();
        return d.containsKey("maxStalenessSeconds")
                ? ReadPreference.valueOf(mode, List.of(), d.getNumber("maxStalenessSeconds").longValue(), TimeUnit.SECONDS)
                : ReadPreference.valueOf(mode);
    }

    /** A unified-format write concern document ({@code w}, {@code journal}) as the driver's WriteConcern. */
    static WriteConcern writeConcern(BsonDocument d) {
        BsonValue w = d.get("w");
        WriteConcern wc = w == null ? WriteConcern.ACKNOWLEDGED : w.isString() ? new WriteConcern(w.asString().getValue()) : new WriteConcern(w.asNumber().intValue());
        if (d.containsKey("journal")) wc = wc.withJournal(d.getBoolean("journal").getValue());
        return wc;
    }

    private static BsonDocument unacknowledged() {
        return new BsonDocument("acknowledged", BsonBoolean.FALSE);
    }

    /** An operation's arguments, tracking which were read so that an unknown one is refused. */
    private static final class Args {
        private final BsonDocument args;
        private final java.util.Set<String> used = new java.util.HashSet<>();

        Args(BsonDocument args) {
            this.args = args;
        }

        boolean has(String key) {
            return args.containsKey(key);
        }

        BsonValue take(String key) {
            used.add(key);
            BsonValue v = args.get(key);
            if (v == null) throw new Unsupported("missing argument " + key);
            return v;
        }

        BsonDocument doc(String key) {
            return take(key).asDocument();
        }

        BsonDocument docOr(String key, BsonDocument fallback) {
            return has(key) ? doc(key) : fallback;
        }

        List<BsonValue> array(String key) {
            return take(key).asArray().getValues();
        }

        String string(String key) {
            return take(key).asString().getValue();
        }

        int integer(String key) {
            return take(key).asNumber().intValue();
        }

        boolean bool(String key) {
            return take(key).asBoolean().getValue();
        }

        void requireAllUsed(String operation) {
            for (String key : args.keySet()) {
                if (!used.contains(key)) {
                    throw new Unsupported(operation + " argument " + key);
                }
            }
        }
    }
}
