package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.command.CreateIndexesCommand;
import dev.shardstore.shard.migration.AppliedChanges;
import dev.shardstore.shard.migration.MigrationPeers;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.write.IndexCreator;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.support.operation.OperationContext;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * This shard's receipts of resharding operations (MongoDB's {@code ReshardingRecipientService}), driven step by step by
 * the coordinator, which repeats each call until it reports done (so no thread runs here between calls, an abort stops it
 * between two steps, and a restarted shard simply answers the next call):
 * <ol>
 *   <li>{@link #clone}: creates the temporary collection {@code db.system.resharding.<uuid>} with a donor's options and
 *       indexes and the new key's index, then copies from every donor the documents as of {@code cloneTimestamp} whose
 *       new key falls in this recipient's chunks ({@link ReshardingCloneSource}), page by page, each page and the
 *       donor's resume token (table {@code resharding_recipients}) in one transaction;</li>
 *   <li>{@link #apply}: fetches each donor's oplog entries of the collection after the position applied
 *       ({@code cloneTimestamp} first), in order, and applies them idempotently as a migration recipient does
 *       ({@link AppliedChanges}: an upsert of the post-image when its new key is this recipient's, a delete by
 *       {@code _id} otherwise, so a document an update moves to another recipient leaves this one), each batch with the
 *       position in one transaction;</li>
 *   <li>{@link #commit}: renames the temporary collection onto the collection, dropping the old one;
 *       {@link #abort}: drops the temporary collection and the progress.</li>
 * </ol>
 * The writes are {@code fromMigrate}: they are not client changes of the collection.
 */
@Component
public class ReshardingRecipients {
    /**
     * The verification's test hook: armed with the error action (any code), the next clone page stores its first
     * document with a planted field instead of failing, so that verification must find the difference.
     */
    public static final String CORRUPT_ONE_DOCUMENT = "reshardingRecipient.corruptOneDocument";
    /** The fault-test step passed once a clone page and its resume token are committed. */
    public static final String AFTER_CLONE_PAGE = "reshardingRecipient.afterClonePage";
    private static final OperationContext RECIPIENT = OperationContext.internal("reshardingRecipient");
    private static final int PAGE_ROWS = 1000;
    private static final long PAGE_BYTES = 4L * 1024 * 1024;

    private final CollectionCatalog catalog;
    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final IndexCreator indexCreator;
    private final CollectionShardingRuntime runtime;
    private final CollectionShardingState sharding;
    private final MigrationPeers peers;
    private final FailPoints failPoints;
    private final JdbcClient jdbc;

    public ReshardingRecipients(CollectionCatalog catalog, DocumentStore store, WriteUnitOfWork units, IndexCreator indexCreator,
            CollectionShardingRuntime runtime, CollectionShardingState sharding, MigrationPeers peers, FailPoints failPoints, JdbcClient jdbc) {
        this.catalog = catalog;
        this.store = store;
        this.units = units;
        this.indexCreator = indexCreator;
        this.runtime = runtime;
        this.sharding = sharding;
        this.peers = peers;
        this.failPoints = failPoints;
        this.jdbc = jdbc;
    }

    /**
     * What a receipt is: the operation, the collection, the new key, this recipient's new chunks and the donors.
     *
     * @param ranges this recipient's chunks of the new key, as KeyString ranges
     */
    public record Receipt(UUID id, Namespace namespace, ShardKeyPattern newKey, List<KeyRange> ranges, List<BsonDocument> chunkBounds,
            List<String> donors, BsonTimestamp cloneTimestamp) {
        public Receipt {
            ranges = List.copyOf(ranges);
            chunkBounds = List.copyOf(chunkBounds);
            donors = List.copyOf(donors);
        }

        /** {@code db.system.resharding.<uuid>}. */
        public Namespace temporary() {
            return new Namespace(namespace.db(), "system.resharding." + id);
        }

        boolean mine(BsonDocument document) {
            byte[] key;
            try {
                key = newKey.keyOf(document);
            } catch (CommandException e) {
                return false; // an array on the new key's path: in no chunk
            }
            return ranges.stream().anyMatch(r -> r.contains(key));
        }
    }

    /** A step's outcome: whether the phase is done here, and how many documents (clone) or entries (apply) it took. */
    public record Step(boolean done, long count) {}

    /**
     * Copies up to {@code maxPages} pages from each donor not cloned yet.
     *
     * @return done once every donor's clone is complete
     */
    public Step clone(Receipt receipt, int maxPages) {
        CollectionInfo temporary = prepare(receipt);
        boolean done = true;
        long copied = 0;
        for (String donor : receipt.donors()) {
            Progress progress = progress(receipt, donor);
            byte[] after = progress.cloneAfter();
            for (int page = 0; page < maxPages && !progress.cloned(); page++) {
                BsonDocument reply = peers.onShard(donor, "admin", operation("_shardsvrReshardingCloneBatch", receipt)
                        .append("cloneTimestamp", receipt.cloneTimestamp()).append("ranges", bounds(receipt))
                        .append("after", new BsonBinary(after)).append("maxRows", new BsonInt32(PAGE_ROWS)));
                List<StoredDocument> documents = new ArrayList<>(reply.getArray("documents").size());
                for (BsonValue d : reply.getArray("documents")) {
                    documents.add(StoredDocument.of(d.asDocument()));
                }
                if (!documents.isEmpty() && corruptionPlanted()) {
                    documents.set(0, StoredDocument.of(documents.getFirst().decode().append("reshardingCorrupted", BsonBoolean.TRUE)));
                }
                boolean last = !reply.isBinary("next");
                byte[] next = last ? after : reply.getBinary("next").getData();
                units.writeFromMigrate(RECIPIENT, inUnit -> {
                    store.upsertAndDelete(inUnit, temporary, documents, List.of());
                    jdbc.sql("UPDATE resharding_recipients SET clone_after = ?, cloned = ?, documents_copied = documents_copied + ? "
                            + "WHERE resharding_uuid = ? AND donor = ?").params(next, last, documents.size(), receipt.id(), donor).update();
                    return null;
                });
                failPoints.hit(AFTER_CLONE_PAGE);
                copied += documents.size();
                after = next;
                progress = new Progress(next, last, progress.appliedThrough());
            }
            done &= progress.cloned();
        }
        return new Step(done, copied);
    }

    /**
     * Fetches and applies up to {@code maxBatches} oplog batches from each donor.
     *
     * @return done when every donor's last batch reached its all-durable point (nothing more to fetch now)
     */
    public Step apply(Receipt receipt, int maxBatches) {
        CollectionInfo temporary = prepare(receipt);
        boolean caughtUp = true;
        long applied = 0;
        for (String donor : receipt.donors()) {
            BsonTimestamp position = progress(receipt, donor).appliedThrough();
            boolean more = true;
            for (int batch = 0; batch < maxBatches && more; batch++) {
                BsonDocument reply = peers.onShard(donor, "admin", operation("_shardsvrReshardingOplogBatch", receipt).append("after", position));
                List<BsonValue> entries = reply.getArray("entries").getValues();
                AppliedChanges changes = AppliedChanges.of(entries, receipt::mine);
                BsonTimestamp reached = reply.getTimestamp("resumeAfter");
                units.writeFromMigrate(RECIPIENT, inUnit -> {
                    store.upsertAndDelete(inUnit, temporary, changes.upserts(), changes.deletes());
                    jdbc.sql("UPDATE resharding_recipients SET applied_through = ? WHERE resharding_uuid = ? AND donor = ?")
                            .params(reached.getValue(), receipt.id(), donor).update();
                    return null;
                });
                applied += entries.size();
                position = reached;
                more = reply.getBoolean("more").getValue();
            }
            caughtUp &= !more;
        }
        return new Step(caughtUp, applied);
    }

    /**
     * The commit here: the temporary collection becomes the collection (the old one, if this shard had it, dropped), its
     * filtering metadata is marked stale, the progress is forgotten. Idempotent: once renamed, nothing is left to do.
     */
    public void commit(UUID id, Namespace namespace) {
        Namespace temporary = new Namespace(namespace.db(), "system.resharding." + id);
        runtime.exclusive(namespace, () -> catalog.renameDroppingTarget(RECIPIENT, temporary, namespace));
        sharding.markStale(namespace.full());
        jdbc.sql("DELETE FROM resharding_recipients WHERE resharding_uuid = ?").param(id).update();
    }

    /** The abort here: the temporary collection dropped, the progress forgotten. Idempotent. */
    public void abort(UUID id, Namespace namespace) {
        Namespace temporary = new Namespace(namespace.db(), "system.resharding." + id);
        runtime.exclusive(temporary, () -> catalog.drop(RECIPIENT, temporary));
        jdbc.sql("DELETE FROM resharding_recipients WHERE resharding_uuid = ?").param(id).update();
    }

    /**
     * The operations this shard receives as {@code $currentOp} lists them, MongoDB's shape for a resharding recipient:
     * {@code {type: "op", desc: "ReshardingRecipientService <uuid>", op: "command", ns, recipientState: "cloning" |
     * "applying", documentsCopied}} (applying once every donor's clone is done).
     */
    public List<BsonDocument> describe() {
        return jdbc.sql("SELECT resharding_uuid, namespace, coalesce(sum(documents_copied), 0) AS copied, bool_and(cloned) AS cloned"
                        + " FROM resharding_recipients GROUP BY resharding_uuid, namespace ORDER BY resharding_uuid")
                .query((row, i) -> new BsonDocument("type", new BsonString("op"))
                        .append("desc", new BsonString("ReshardingRecipientService " + row.getObject("resharding_uuid", UUID.class)))
                        .append("op", new BsonString("command"))
                        .append("ns", new BsonString(row.getString("namespace")))
                        .append("recipientState", new BsonString(row.getBoolean("cloned") ? "applying" : "cloning"))
                        .append("documentsCopied", new BsonInt64(row.getLong("copied")))).list();
    }

    /** The documents cloned so far per donor, for progress and tests. */
    public long documentsCopied(UUID id) {
        return jdbc.sql("SELECT coalesce(sum(documents_copied), 0) FROM resharding_recipients WHERE resharding_uuid = ?").param(id)
                .query(Long.class).single();
    }

    /** The temporary collection (created with its indexes when missing) and a progress row per donor. */
    private CollectionInfo prepare(Receipt receipt) {
        for (String donor : receipt.donors()) {
            jdbc.sql("INSERT INTO resharding_recipients (resharding_uuid, donor, namespace, clone_after, applied_through) "
                    + "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
                    .params(receipt.id(), donor, receipt.namespace().full(), new byte[0], receipt.cloneTimestamp().getValue()).update();
        }
        Namespace temporary = receipt.temporary();
        return catalog.find(temporary).orElseGet(() -> {
            String donor = receipt.donors().getFirst();
            BsonDocument options = peers.collectionOptions(donor, receipt.namespace());
            List<BsonDocument> specs = new ArrayList<>();
            boolean newKeyIndexed = false;
            for (BsonDocument spec : peers.indexSpecs(donor, receipt.namespace())) {
                if (!spec.getString("name").getValue().equals("_id_")) {
                    specs.add(CreateIndexesCommand.validate(Collation.indexSpecToCopy(spec)));
                    newKeyIndexed |= spec.getDocument("key").equals(receipt.newKey().pattern());
                }
            }
            if (!newKeyIndexed) {
                specs.add(CreateIndexesCommand.validate(new BsonDocument("key", receipt.newKey().pattern())
                        .append("name", new BsonString(indexName(receipt.newKey())))));
            }
            return runtime.exclusive(temporary, () -> {
                CollectionInfo created = catalog.create(RECIPIENT, temporary, options).collection();
                indexCreator.createAll(RECIPIENT, created, specs);
                return created;
            });
        });
    }

    /** MongoDB's default index name: {@code country_1_name_1}, {@code _id_hashed}. */
    private static String indexName(ShardKeyPattern key) {
        List<String> parts = new ArrayList<>();
        key.pattern().forEach((field, direction) -> parts.add(field + "_" + (direction.isString() ? direction.asString().getValue()
                : String.valueOf(direction.asNumber().intValue()))));
        return String.join("_", parts);
    }

    private Progress progress(Receipt receipt, String donor) {
        return jdbc.sql("SELECT clone_after, cloned, applied_through FROM resharding_recipients WHERE resharding_uuid = ? AND donor = ?")
                .params(receipt.id(), donor)
                .query((rs, n) -> new Progress(rs.getBytes(1), rs.getBoolean(2), new BsonTimestamp(rs.getLong(3)))).single();
    }

    private boolean corruptionPlanted() {
        try {
            failPoints.hit(CORRUPT_ONE_DOCUMENT);
            return false;
        } catch (CommandException e) {
            return true;
        }
    }

    private static org.bson.BsonArray bounds(Receipt receipt) {
        return new org.bson.BsonArray(List.copyOf(receipt.chunkBounds()));
    }

    /** {@code {<name>: "db.coll", reshardingUUID, key}}: how this recipient names the operation to a donor. */
    private static BsonDocument operation(String name, Receipt receipt) {
        return new BsonDocument(name, new BsonString(receipt.namespace().full()))
                .append("reshardingUUID", new BsonBinary(receipt.id(), UuidRepresentation.STANDARD))
                .append("key", receipt.newKey().pattern());
    }

    /** A row of {@code resharding_recipients}. */
    private record Progress(byte[] cloneAfter, boolean cloned, BsonTimestamp appliedThrough) {}
}
