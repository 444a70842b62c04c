package dev.shardstore.config.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.changelog.Changelog;
import dev.shardstore.config.catalog.ChunkCatalog;
import dev.shardstore.config.catalog.ClusterVersion;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DatabaseEntity;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.settings.ActionLog;
import dev.shardstore.config.settings.ClusterSettings;
import dev.shardstore.config.settings.ZoneCatalog;
import dev.shardstore.config.keys.KeyManager;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonString;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code find} on the {@code config} database, so routers can serve {@code config.shards}, {@code config.databases},
 * {@code config.collections}, {@code config.chunks} (ordered by namespace, then {@code min}), {@code config.changelog}
 * and {@code config.actionlog} (oldest first), {@code config.settings}, {@code config.tags} and {@code config.version}
 * (the cluster's id) like mongos does, and {@code admin.system.keys} (the cluster time signing keys, oldest first),
 * where every service reads them. The catalog is small, so the whole collection (a collection's chunks, when the
 * filter names its {@code uuid}) is read and the query engine runs here: {@code filter} is any query filter but
 * {@code $expr} (QueryFeatureNotAllowed, as on any catalog filter), then {@code sort} (a stable sort: ties keep the
 * order above), {@code skip}, {@code limit} (a negative one as its absolute value, MongoDB's single-batch limit; drivers
 * send {@code limit: 1} for {@code first()}) and {@code projection}, each as a shard's find applies them, and with the
 * engine's errors (BadValue naming the operator). The reply is one batch with cursor id 0. {@code hint} (there is no
 * index to choose) and {@code let} (no {@code $expr} to use it) are refused with NotImplemented naming them rather
 * than ignored; the command registry has already refused what no find takes (see CommandOptions).
 */
@Component
public class ConfigFindCommand implements CommandHandler {
    private static final List<String> UNSUPPORTED = List.of("hint", "let");
    private static final String KEYS = "system.keys";
    private final ShardCatalog shards;
    private final DatabaseCatalog databases;
    private final ShardedCollectionCatalog collections;
    private final ChunkCatalog chunks;
    private final Changelog changelog;
    private final ClusterSettings settings;
    private final ActionLog actionLog;
    private final ZoneCatalog zones;
    private final KeyManager keys;
    private final ClusterVersion version;

    public ConfigFindCommand(ShardCatalog shards, DatabaseCatalog databases, ShardedCollectionCatalog collections, ChunkCatalog chunks,
            Changelog changelog, ClusterSettings settings, ActionLog actionLog, ZoneCatalog zones, KeyManager keys,
            ClusterVersion version) {
        this.version = version;
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
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
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
                        + "' is not supported on the config database");
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
            case "version" -> List.of(version.document());
            default -> List.of();
        };
        Filter query = Filter.parse(filter);
        BsonDocument sort = args.optionalDocument(command, "sort", "sort");
        BsonDocument projection = args.optionalDocument(command, "projection", "projection");
        Projection shape = projection.isEmpty() ? null : Projection.parse(projection);
        long skip = args.optionalNonNegative("skip", 0);
        long limit = command.isNumber("limit") ? Math.abs(command.getNumber("limit").longValue()) : 0;
        Stream<BsonDocument> matching = all.stream().filter(query::matches);
        if (!sort.isEmpty()) {
            matching = matching.sorted(Sort.parse(sort).comparator());
        }
        List<BsonDocument> batch = matching.skip(skip).limit(limit == 0 ? Long.MAX_VALUE : limit)
                .map(doc -> shape == null ? doc : shape.apply(doc, query)).toList();
        return Replies.cursor(true, batch, 0, db + "." + collection);
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
}
