package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.view.ViewCatalog;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.support.command.CommandOptions;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code create}: {@code {create: <coll>, ...options}} → {@code {ok: 1}}. The options are
 * recorded and shown by listCollections. Creating an existing collection with the same options
 * succeeds (MongoDB 7.0+); with other options it is NamespaceExists (48). Options that change a
 * collection's behaviour this shard does not implement (capped, validation, clustered) are refused with
 * NotImplemented (238) naming the option before the command runs ({@link CommandOptions}), as is any field MongoDB
 * does not document.
 *
 * <p>{@code collation} sets the collection's default collation (MongoDB manual, "Collation"): recorded as its full
 * spec (none for {@code {locale: "simple"}}), listed in listCollections' {@code options.collation}, used by reads that
 * give no collation ({@link CollectionCollation}) and by every index created without one, the {@code _id} index
 * included ({@link CollectionCatalog#create}). With {@code viewOn} or {@code timeseries} a non-simple collation is
 * NotImplemented (238) naming {@code create.collation}.
 *
 * <p>With {@code viewOn} (and {@code pipeline}) it creates a read-only view ({@link ViewCatalog}).
 *
 * <p>With {@code timeseries: {timeField, metaField?, granularity? | bucketMaxSpanSeconds + bucketRoundingSeconds}}
 * and optionally {@code expireAfterSeconds} (a non-negative number of seconds) it creates a time-series collection
 * (MongoDB manual, "Create a Time Series Collection"): the buckets collection {@code system.buckets.<coll>} holding
 * the normalized options ({@link TimeseriesOptions}) and an index on {@code {meta: 1, control.min.<t>: 1,
 * control.max.<t>: 1}} (without {@code meta} when there is no meta field), as MongoDB creates one on
 * {@code {<meta>: 1, <time>: 1}}. A regular collection and a time-series collection never share a name
 * (NamespaceExists). {@code expireAfterSeconds} without {@code timeseries} is InvalidOptions (72): TTL needs a
 * clustered collection, which this shard does not implement.
 */
@Component
public class CreateCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final TimeseriesCollections timeseries;
    private final TimeseriesCreator creator;
    private final ViewCatalog views;

    public CreateCommand(CommandInvoker invoker, CollectionCatalog catalog, TimeseriesCollections timeseries, TimeseriesCreator creator,
            ViewCatalog views) {
        super(invoker);
        this.catalog = catalog;
        this.timeseries = timeseries;
        this.creator = creator;
        this.views = views;
    }

    @Override
    public String name() {
        return "create";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    @Override
    protected boolean servesViews() {
        return true;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = new Namespace(db, new CommandArgs(command).collectionName());
        BsonDocument options = new BsonDocument();
        command.forEach((field, value) -> {
            if (!field.equals("create") && !CommandOptions.isGeneric(field)) {
                options.append(field, value);
            }
        });
        resolveCollation(options);
        if (options.containsKey(CollectionCollation.OPTION)) {
            for (String other : List.of("viewOn", "pipeline", "timeseries")) {
                if (options.containsKey(other)) {
                    throw new CommandException(ErrorCode.NotImplemented, "'create.collation' other than {locale: \"simple\"} is not"
                            + " implemented together with 'create." + other + "'");
                }
            }
        }
        if (options.containsKey("viewOn") || options.containsKey("pipeline")) {
            return createView(opCtx, ns, options);
        }
        if (options.containsKey("timeseries")) {
            return createTimeseries(opCtx, ns, options);
        }
        if (options.containsKey("expireAfterSeconds")) {
            throw new CommandException(ErrorCode.InvalidOptions, "'create.expireAfterSeconds' needs 'create.timeseries': "
                    + "TTL of clustered collections is not implemented");
        }
        if (timeseries.buckets(ns).isPresent()) {
            throw exists(ns, "as a time-series collection");
        }
        CollectionCatalog.Creation creation = catalog.create(opCtx, ns, options);
        if (!creation.created() && !creation.collection().options().equals(options)) {
            throw exists(ns, "with different options: " + creation.collection().options().toJson());
        }
        return Replies.ok();
    }

    /**
     * Replaces a {@code collation} option by the full spec MongoDB records and lists ({@link Collation#toDocument()}),
     * or removes it when it is the simple collation (the default: MongoDB records none).
     *
     * @throws CommandException as {@link Collation#parse}, naming {@code create.collation}
     */
    private static void resolveCollation(BsonDocument options) {
        BsonValue given = options.remove(CollectionCollation.OPTION);
        Collation collation = Collation.parse("create." + CollectionCollation.OPTION, given);
        if (!collation.isSimple()) {
            options.append(CollectionCollation.OPTION, collation.toDocument());
        }
    }

    /**
     * A view ({@link ViewCatalog}): a catalog entry with options {@code {viewOn, pipeline}}; created again with the same
     * definition it is a no-op, with another NamespaceExists, as for collections.
     */
    private BsonDocument createView(OperationContext opCtx, Namespace ns, BsonDocument options) {
        if (!options.containsKey("viewOn")) {
            throw new CommandException(ErrorCode.InvalidOptions, "'pipeline' requires 'viewOn' also be specified");
        }
        for (String other : List.of("timeseries", "expireAfterSeconds")) {
            if (options.containsKey(other)) {
                throw new CommandException(ErrorCode.InvalidOptions, "'create." + other + "' cannot be combined with 'viewOn'");
            }
        }
        BsonDocument definition = views.validateNew(ns, options);
        if (timeseries.buckets(ns).isPresent()) {
            throw exists(ns, "as a time-series collection");
        }
        CollectionCatalog.Creation creation = catalog.create(opCtx, ns, definition);
        if (!creation.created() && !creation.collection().options().equals(definition)) {
            throw exists(ns, "with different options: " + creation.collection().options().toJson());
        }
        return Replies.ok();
    }

    private BsonDocument createTimeseries(OperationContext opCtx, Namespace ns, BsonDocument options) {
        TimeseriesOptions parsed = TimeseriesOptions.parse(Objects.requireNonNull(options.get("timeseries"), "the caller checked it is there"), "create.timeseries");
        options.put("timeseries", parsed.toDocument());
        if (options.containsKey("expireAfterSeconds")) {
            options.put("expireAfterSeconds", new BsonInt64(expireAfterSeconds(options.get("expireAfterSeconds"), "create.expireAfterSeconds")));
        }
        creator.create(opCtx, ns, parsed, options);
        return Replies.ok();
    }

    /** {@code expireAfterSeconds} (of create or collMod, named {@code path} in errors) as whole seconds. */
    static long expireAfterSeconds(BsonValue value, String path) {
        if (!value.isNumber()) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + "' must be a number, not " + value.getBsonType());
        }
        double seconds = value.asNumber().doubleValue();
        if (seconds < 0 || Double.isNaN(seconds)) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + "' cannot be less than 0, not " + value);
        }
        return (long) seconds;
    }

    private static CommandException exists(Namespace ns, String how) {
        return TimeseriesCreator.exists(ns, how);
    }
}
