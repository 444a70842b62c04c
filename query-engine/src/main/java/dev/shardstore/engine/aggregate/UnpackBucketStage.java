package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.timeseries.BucketUnpacker;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * MongoDB's internal {@code $_internalUnpackBucket: {timeField, metaField?, bucketMaxSpanSeconds, include? |
 * exclude?}}: each input bucket becomes its measurements ({@link BucketUnpacker}); {@code include}/{@code exclude}
 * are arrays of top-level field names. Placed by the time-series query rewrite
 * ({@code engine.timeseries.TimeseriesRewrite}) after the bucket-level {@code $match}.
 *
 * <p>Errors: TypeMismatch (14) naming the field for a wrongly typed argument; FailedToParse (9) for a missing
 * {@code timeField} or {@code bucketMaxSpanSeconds}, an unknown field, or both {@code include} and {@code exclude}.
 */
final class UnpackBucketStage implements Stage {
    static final String NAME = "$_internalUnpackBucket";

    private final BucketUnpacker unpacker;

    private UnpackBucketStage(BucketUnpacker unpacker) {
        this.unpacker = unpacker;
    }

    static Stage parse(BsonDocument spec) {
        String timeField = null;
        String metaField = null;
        boolean span = false;
        Set<String> fields = null;
        boolean include = true;
        for (String field : spec.keySet()) {
            BsonValue value = spec.get(field);
            switch (field) {
                case "timeField" -> timeField = string(value, field);
                case "metaField" -> metaField = string(value, field);
                case "bucketMaxSpanSeconds" -> {
                    if (!value.isNumber()) {
                        throw new CommandException(ErrorCode.TypeMismatch, NAME + ".bucketMaxSpanSeconds must be a number");
                    }
                    span = true;
                }
                case "include", "exclude" -> {
                    if (fields != null) {
                        throw new CommandException(ErrorCode.FailedToParse, NAME + " takes include or exclude, not both");
                    }
                    fields = names(value, field);
                    include = field.equals("include");
                }
                default -> throw new CommandException(ErrorCode.FailedToParse, "unknown field " + NAME + "." + field);
            }
        }
        if (timeField == null || !span) {
            throw new CommandException(ErrorCode.FailedToParse, NAME + " requires timeField and bucketMaxSpanSeconds");
        }
        return new UnpackBucketStage(new BucketUnpacker(timeField, metaField, fields, include));
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.flatMap(bucket -> unpacker.unpack(bucket).stream());
    }

    private static String string(BsonValue value, String field) {
        if (!value.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, NAME + "." + field + " must be a string");
        }
        return value.asString().getValue();
    }

    private static Set<String> names(BsonValue value, String field) {
        if (!value.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, NAME + "." + field + " must be an array of field names");
        }
        Set<String> names = new HashSet<>();
        for (BsonValue name : value.asArray()) {
            names.add(string(name, field));
        }
        return names;
    }
}
