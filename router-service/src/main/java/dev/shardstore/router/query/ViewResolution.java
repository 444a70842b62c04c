package dev.shardstore.router.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Reads of a view, as mongos runs them (MongoDB manual, "Views"; the primary shard keeps the view and answers
 * a read of it with CommandOnShardedViewNotSupportedOnMongod (169) carrying {@code resolvedView: {ns, pipeline}}): the
 * read is rerun as an {@code aggregate} on the resolved collection — sharded or not — of the view's pipeline followed by
 * the read's own parts:
 *
 * <ul>
 *   <li>find: {@code $match} filter, {@code $sort}, {@code $skip}, {@code $limit}, {@code $project} projection, with
 *       {@code batchSize}; a find option with no aggregate equivalent is NotImplemented (238) naming it;</li>
 *   <li>aggregate: the client's pipeline after the view's;</li>
 *   <li>count: {@code $match} query, {@code $skip}, {@code $limit}, {@code $count} → {@code {n}};</li>
 *   <li>distinct: {@code $match} query, {@code $unwind} of the key (arrays count by element, as distinct does),
 *       {@code $group} with {@code $addToSet} → {@code {values}};</li>
 *   <li>explain of any of them: the explain of that aggregate, so it shows the resolved pipeline.</li>
 * </ul>
 *
 * The cursor a find or aggregate answers is the aggregate's, on the resolved collection's namespace (getMore names
 * that collection), where MongoDB names the view.
 *
 * <p>A view's default collation is the simple one (views are created without a collation here), and MongoDB refuses a
 * read of a view under another collation: OptionNotSupportedOnView (167) {@code "Cannot override a view's default
 * collation"}; {@code {locale: "simple"}} is accepted and carried to the aggregate.
 */
public final class ViewResolution {
    /** The find fields a view read turns into aggregate stages or options. */
    private static final Set<String> FIND_FIELDS = Set.of("find", "filter", "sort", "projection", "skip", "limit", "batchSize", "let",
            "collation", "comment", "readConcern", "hint", "$db", "lsid", "$clusterTime");
    /** The fields of the read that go with the aggregate as they are. */
    private static final List<String> CARRIED = List.of("let", "collation", "comment", "readConcern", "hint");

    private ViewResolution() {}

    /**
     * Runs {@code read}; when the primary answered that its namespace is a view, runs {@code aggregate} of the
     * aggregate {@link #rewrite} builds instead.
     *
     * @param command   the client's read command ({@code find}, {@code aggregate}, {@code count}, {@code distinct}, or
     *                  the explained command of an explain)
     * @param aggregate how to run an aggregate command on {@code db} (the router's aggregate, or explain of it)
     * @param answer    the reply to the client from the aggregate's reply (a count or distinct reshapes it)
     */
    public static BsonDocument orResolved(BsonDocument command, Supplier<BsonDocument> read, Function<BsonDocument, BsonDocument> aggregate,
            Function<BsonDocument, BsonDocument> answer) {
        try {
            return read.get();
        } catch (CommandException e) {
            if (e.code() != ErrorCode.CommandOnShardedViewNotSupportedOnMongod || !e.extraInfo().isDocument("resolvedView")) {
                throw e;
            }
            return answer.apply(aggregate.apply(rewrite(command, e.extraInfo().getDocument("resolvedView"))));
        }
    }

    /** The aggregate on {@code resolvedView.ns} that reads what {@code command} reads of the view. */
    static BsonDocument rewrite(BsonDocument command, BsonDocument resolvedView) {
        String kind = command.getFirstKey();
        if (!Collation.parse(kind + ".collation", command.get("collation")).isSimple()) {
            throw new CommandException(ErrorCode.OptionNotSupportedOnView, "Cannot override a view's default collation");
        }
        BsonArray pipeline = resolvedView.getArray("pipeline").clone();
        BsonDocument cursor = new BsonDocument();
        switch (kind) {
            case "find" -> {
                command.keySet().stream().filter(f -> !FIND_FIELDS.contains(f)).findFirst().ifPresent(f -> {
                    throw new CommandException(ErrorCode.NotImplemented, "option 'find." + f + "' is not supported on a view");
                });
                addIfPresent(pipeline, "$match", command.get("filter"));
                addIfPresent(pipeline, "$sort", command.get("sort"));
                addIfPresent(pipeline, "$skip", command.get("skip"));
                if (command.isNumber("limit") && command.getNumber("limit").longValue() != 0) {
                    pipeline.add(new BsonDocument("$limit", new BsonInt32((int) Math.abs(command.getNumber("limit").longValue()))));
                }
                addIfPresent(pipeline, "$project", command.get("projection"));
                if (command.containsKey("batchSize")) {
                    cursor.append("batchSize", command.get("batchSize"));
                }
            }
            case "aggregate" -> pipeline.addAll(command.getArray("pipeline", new BsonArray()));
            case "count" -> {
                addIfPresent(pipeline, "$match", command.get("query"));
                addIfPresent(pipeline, "$skip", command.get("skip"));
                if (command.isNumber("limit") && command.getNumber("limit").longValue() != 0) {
                    pipeline.add(new BsonDocument("$limit", new BsonInt32((int) Math.abs(command.getNumber("limit").longValue()))));
                }
                pipeline.add(new BsonDocument("$count", new BsonString("n")));
            }
            case "distinct" -> {
                String key = command.getString("key").getValue();
                addIfPresent(pipeline, "$match", command.get("query"));
                pipeline.add(new BsonDocument("$unwind", new BsonDocument("path", new BsonString("$" + key))
                        .append("preserveNullAndEmptyArrays", BsonBoolean.TRUE)));
                pipeline.add(new BsonDocument("$group", new BsonDocument("_id", BsonNull.VALUE)
                        .append("values", new BsonDocument("$addToSet", new BsonString("$" + key)))));
            }
            default -> throw new CommandException(ErrorCode.CommandNotSupportedOnView, kind + " is not supported on a view");
        }
        String ns = resolvedView.getString("ns").getValue();
        BsonString collection = new BsonString(ns.substring(ns.indexOf('.') + 1));
        if (kind.equals("aggregate")) { // every other option of the client's aggregate applies to the rewritten one
            BsonDocument rewritten = command.clone();
            rewritten.put("aggregate", collection);
            rewritten.put("pipeline", pipeline);
            return rewritten;
        }
        BsonDocument rewritten = new BsonDocument("aggregate", collection).append("pipeline", pipeline).append("cursor", cursor);
        CARRIED.stream().filter(command::containsKey).forEach(field -> rewritten.append(field, command.get(field)));
        return rewritten;
    }

    /** The count reply {@code {n}} from the reply of the aggregate {@link #rewrite} built for a count (first batch only). */
    public static BsonDocument countReply(BsonDocument aggregateReply) {
        List<BsonValue> batch = aggregateReply.getDocument("cursor").getArray("firstBatch");
        return Replies.ok(new BsonDocument("n", batch.isEmpty() ? new BsonInt32(0) : batch.get(0).asDocument().get("n")));
    }

    /** The distinct reply {@code {values}} from the reply of the aggregate {@link #rewrite} built for a distinct. */
    public static BsonDocument distinctReply(BsonDocument aggregateReply) {
        List<BsonValue> batch = aggregateReply.getDocument("cursor").getArray("firstBatch");
        return Replies.ok(new BsonDocument("values", batch.isEmpty() ? new BsonArray() : batch.get(0).asDocument().getArray("values")));
    }

    private static void addIfPresent(BsonArray pipeline, String stage, @Nullable BsonValue argument) {
        if (argument != null && !(argument.isDocument() && argument.asDocument().isEmpty())) {
            pipeline.add(new BsonDocument(stage, argument));
        }
    }
}
