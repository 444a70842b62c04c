package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * Stages MongoDB defines in terms of others, parsed into those (as MongoDB's own desugaring):
 * <ul>
 *   <li>{@code {$count: "name"}} = {@code $group {_id: null, name: {$sum: 1}}} + {@code $project {_id: 0}}: no
 *       output for no input;</li>
 *   <li>{@code {$sortByCount: <expression>}} = {@code $group {_id: <expression>, count: {$sum: 1}}} +
 *       {@code $sort {count: -1}};</li>
 *   <li>{@code {$bucket: {groupBy, boundaries, default?, output?}}} = {@code $group} whose {@code _id} is the
 *       lower boundary of the bucket holding {@code groupBy} ({@code boundaries[i] <= v < boundaries[i+1]}) or
 *       {@code default}, with the {@code output} accumulators (default {@code {count: {$sum: 1}}}), then
 *       {@code $sort {_id: 1}}.</li>
 * </ul>
 * Errors: BadValue (2) for an empty, {@code $}-prefixed or dotted {@code $count} name; {@code $bucket} without
 * {@code groupBy}/{@code boundaries}, with fewer than two boundaries, boundaries not ascending or of mixed
 * types, or a default inside the boundaries' range; a {@code groupBy} value outside every bucket with no
 * default fails as the {@code $switch} it desugars to.
 */
final class Desugared {
    private Desugared() {}

    static Stage count(BsonValue argument, PipelineParser pipelines) {
        if (!argument.isString() || argument.asString().getValue().isEmpty()
                || argument.asString().getValue().startsWith("$") || argument.asString().getValue().contains(".")) {
            throw new CommandException(ErrorCode.BadValue,
                    "the count field must be a non-empty string that does not start with '$' or contain '.'");
        }
        String name = argument.asString().getValue();
        return sequence(pipelines.parse(
                new BsonDocument("$group", new BsonDocument("_id", BsonNull.VALUE).append(name, sumOfOne())),
                new BsonDocument("$project", new BsonDocument("_id", new BsonInt32(0)))));
    }

    static Stage sortByCount(BsonValue argument, PipelineParser pipelines) {
        return sequence(pipelines.parse(
                new BsonDocument("$group", new BsonDocument("_id", argument).append("count", sumOfOne())),
                new BsonDocument("$sort", new BsonDocument("count", new BsonInt32(-1)))));
    }

    static Stage bucket(BsonDocument spec, PipelineParser pipelines) {
        BsonValue groupBy = spec.get("groupBy");
        BsonValue boundaries = spec.get("boundaries");
        if (groupBy == null || boundaries == null || !boundaries.isArray() || boundaries.asArray().size() < 2) {
            throw new CommandException(ErrorCode.BadValue,
                    "$bucket requires 'groupBy' and 'boundaries', an array of at least 2 values");
        }
        List<BsonValue> bounds = boundaries.asArray().getValues();
        Collation collation = pipelines.variables().collation(); // boundaries and default order as the buckets' $gte/$lt compare
        for (int i = 1; i < bounds.size(); i++) {
            if (BsonOrder.typeRank(bounds.get(i).getBsonType()) != BsonOrder.typeRank(bounds.get(0).getBsonType())
                    || BsonOrder.compare(bounds.get(i - 1), bounds.get(i), collation) >= 0) {
                throw new CommandException(ErrorCode.BadValue,
                        "The 'boundaries' option to $bucket must be sorted in ascending order and of the same type");
            }
        }
        BsonValue otherwise = spec.get("default");
        if (otherwise != null && BsonOrder.typeRank(otherwise.getBsonType()) == BsonOrder.typeRank(bounds.get(0).getBsonType())
                && BsonOrder.compare(otherwise, bounds.get(0), collation) >= 0 && BsonOrder.compare(otherwise, bounds.getLast(), collation) < 0) {
            throw new CommandException(ErrorCode.BadValue, "The $bucket 'default' field must be less than the lowest "
                    + "boundary or greater than or equal to the highest boundary.");
        }
        BsonArray branches = new BsonArray();
        for (int i = 0; i + 1 < bounds.size(); i++) {
            BsonDocument inBucket = new BsonDocument("$and", new BsonArray(List.of(
                    new BsonDocument("$gte", new BsonArray(List.of(groupBy, literal(bounds.get(i))))),
                    new BsonDocument("$lt", new BsonArray(List.of(groupBy, literal(bounds.get(i + 1))))))));
            branches.add(new BsonDocument("case", inBucket).append("then", literal(bounds.get(i))));
        }
        BsonDocument bucketOf = new BsonDocument("branches", branches);
        if (otherwise != null) {
            bucketOf.put("default", literal(otherwise));
        }
        BsonDocument group = new BsonDocument("_id", new BsonDocument("$switch", bucketOf));
        BsonValue output = spec.get("output", new BsonDocument("count", sumOfOne()));
        if (!output.isDocument()) {
            throw new CommandException(ErrorCode.BadValue, "The $bucket 'output' field must be an object, but found type: "
                    + output.getBsonType());
        }
        group.putAll(output.asDocument());
        return sequence(pipelines.parse(new BsonDocument("$group", group),
                new BsonDocument("$sort", new BsonDocument("_id", new BsonInt32(1)))));
    }

    private static BsonDocument sumOfOne() {
        return new BsonDocument("$sum", new BsonInt32(1));
    }

    private static BsonDocument literal(BsonValue value) {
        return new BsonDocument("$literal", value);
    }

    private static Stage sequence(List<Stage> stages) {
        return input -> Stages.chain(stages, input);
    }
}
