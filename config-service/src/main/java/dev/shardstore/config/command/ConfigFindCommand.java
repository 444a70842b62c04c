package dev.shardstore.config.command;

import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.changelog.Changelog;
import dev.shardstore.config.catalog.ChunkCatalog;
import dev.shardstore.config.catalog.CollectionCatalog;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DatabaseEntity;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.settings.ActionLog;
import dev.shardstore.config.settings.ClusterSettings;
import dev.shardstore.config.settings.ZoneCatalog;
import dev.shardstore.config.keys.KeyManager;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonString;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code find} on the {@code config} database, so routers can serve {@code config.shards},
 * {@code config.databases}, {@code config.collections}, {@code config.chunks} (ordered by namespace, then
 * {@code min}), {@code config.changelog} and {@code config.actionlog} (oldest first), {@code config.settings} and
 * {@code config.tags} like mongos does, and {@code admin.system.keys} (the cluster time signing keys, oldest first), where
 * every service reads them. The catalog is small, so the whole collection is read and
 * filtered here; filters are limited to equality on top-level fields (an operator is BadValue naming it).
 * The reply is one batch with cursor id 0. {@code skip} and {@code limit} are applied (a negative limit as its
 * absolute value, as MongoDB's single-batch limit; drivers send {@code limit: 1} for {@code first()}); the other find
 * options that shape the result ({@code sort}, {@code projection}, {@code hint}, {@code let}) are refused here with
 * NotImplemented naming them rather than ignored (the command registry has already refused what no find takes, see
 * CommandOptions).
 */
@Component
public class ConfigFindCommand implements CommandHandler {
    private static final List<String> UNSUPPORTED = List.of("sort", "projection", "hint", "let");
    private static final String KEYS = "system.keys";
    private final ShardCatalog shards;
    private final DatabaseCatalog databases;
    private final CollectionCatalog collections;
    private final ChunkCatalog chunks;
    private final Changelog changelog;
    private final ClusterSettings settings;
    private final ActionLog actionLog;
    private final ZoneCatalog zones;
    private final KeyManager keys;

    public ConfigFindCommand(ShardCatalog shards, DatabaseCatalog databases, CollectionCatalog collections, ChunkCatalog chunks,
            Changelog changelog, ClusterSettings settings, ActionLog actionLog, ZoneCatalog zones, KeyManager keys) {
        this.zones = zones;
        this.keys = keys;
        this.changelog = changelog;
        this.settings = settings;
        this.actionLog = actionLog;
        this.shards = shards;
        this.databases = databases;
        this.collections = collections;
        this.chunks = chunks;
    }

    @Override
    public String name() {
        return "find";
    }

    @Override
    public BsonDocument run(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        boolean keysCollection = "admin".equals(db) && KEYS.equals(collection);
        if (!"config".equals(db) && !keysCollection) {
            throw new CommandException(ErrorCode.IllegalOperation, "the config service only serves find on the config database and on admin."
                    + KEYS);
        }
        for (String option : UNSUPPORTED) {
            BsonValue value = command.get(option);
            if (value != null && !value.isNull() && !(value.isDocument() && value.asDocument().isEmpty())
                    && !(value.isNumber() && value.asNumber().doubleValue() == 0)) {
                throw new CommandException(ErrorCode.NotImplemented, "find option '" + option
                        + "' is not supported on the config database (equality filters only)");
            }
        }
        BsonDocument filter = args.optionalDocument(command, "filter", "filter");
        List<BsonDocument> all = keysCollection ? keys.all().stream().map(SigningKey::toBson).toList() : switch (collection) {
            case "shards" -> shardsWithZones();
            case "databases" -> databases.list().stream().map(DatabaseEntity::toBson).toList();
            case "collections" -> collections.list().stream().map(ShardedCollection::toBson).toList();
            case "chunks" -> chunkCandidates(filter).stream().map(CatalogChunk::toBson).toList();
            case "changelog" -> changelog.list();
            case "settings" -> settings.list();
            case "actionlog" -> actionLog.list();
            case "tags" -> zones.ranges(null);
            default -> List.of();
        };
        long skip = args.optionalNonNegative("skip", 0);
        long limit = command.isNumber("limit") ? Math.abs(command.getNumber("limit").longValue()) : 0;
        List<BsonDocument> matching = all.stream().filter(doc -> matches(doc, filter)).skip(skip)
                .limit(limit == 0 ? Long.MAX_VALUE : limit).toList();
        return Replies.cursor(true, matching, 0, db + "." + collection);
    }

    /** {@code config.shards} with each shard's zones as {@code tags} (MongoDB's field; absent when the shard is in none). */
    private List<BsonDocument> shardsWithZones() {
        Map<String, Set<String>> zonesByShard = zones.zonesByShard();
        return shards.listShards().stream().map(shard -> {
            BsonDocument doc = shard.toBson();
            Set<String> tags = zonesByShard.get(shard.id());
            if (tags != null) {
                doc.append("tags", new BsonArray(tags.stream().map(t -> (BsonValue) new BsonString(t)).toList()));
            }
            return doc;
        }).toList();
    }

    /** The chunks of one collection when the filter names its uuid (the common case), else all of them. */
    private List<CatalogChunk> chunkCandidates(BsonDocument filter) {
        BsonValue uuid = filter.get("uuid");
        return uuid != null && uuid.isBinary() && uuid.asBinary().getType() == BsonBinarySubType.UUID_STANDARD.getValue()
                ? chunks.all(uuid.asBinary().asUuid()) : chunks.everything();
    }

    private static boolean matches(BsonDocument doc, BsonDocument filter) {
        for (Map.Entry<String, BsonValue> condition : filter.entrySet()) {
            BsonValue expected = condition.getValue();
            if (condition.getKey().startsWith("$")
                    || expected.isDocument() && !expected.asDocument().isEmpty() && expected.asDocument().getFirstKey().startsWith("$")) {
                throw new CommandException(ErrorCode.BadValue,
                        "config collections support equality filters only; not supported: " + condition.getKey());
            }
            BsonValue actual = doc.get(condition.getKey());
            if (actual == null || BsonOrder.compare(actual, expected) != 0) {
                return false;
            }
        }
        return true;
    }
}
