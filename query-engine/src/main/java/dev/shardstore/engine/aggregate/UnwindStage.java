package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Paths;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code {$unwind: "$path"}} or {@code {$unwind: {path: "$path", includeArrayIndex?: "name",
 * preserveNullAndEmptyArrays?: bool}}} (MongoDB manual, "$unwind"): one output document per element of the
 * array at {@code path} (through embedded documents, not arrays), the field replaced by the element. A
 * non-array, non-null value counts as a one-element array. A missing, null or empty array yields nothing,
 * or the document unchanged when {@code preserveNullAndEmptyArrays}. {@code includeArrayIndex} adds the
 * element's position as a long (null for a non-array or a preserved document).
 *
 * <p>Errors: BadValue (2) for a path without the leading {@code $} ({@code "path option to $unwind stage should
 * be prefixed with a '$'"}), an {@code includeArrayIndex} starting with {@code $}, an unknown option.
 */
final class UnwindStage implements Stage {
    private final List<String> path;
    private final @Nullable String indexField;
    private final boolean preserve;

    private UnwindStage(List<String> path, @Nullable String indexField, boolean preserve) {
        this.path = path;
        this.indexField = indexField;
        this.preserve = preserve;
    }

    static Stage parse(BsonValue argument) {
        if (argument.isString()) {
            return new UnwindStage(path(argument), null, false);
        }
        BsonDocument spec = PipelineParser.document("$unwind", argument);
        for (String option : spec.keySet()) {
            if (!List.of("path", "includeArrayIndex", "preserveNullAndEmptyArrays").contains(option)) {
                throw new CommandException(ErrorCode.BadValue, "unrecognized option to $unwind stage: " + option);
            }
        }
        if (!spec.containsKey("path")) {
            throw new CommandException(ErrorCode.BadValue, "no path specified to $unwind stage");
        }
        BsonValue index = spec.get("includeArrayIndex");
        if (index != null && (!index.isString() || index.asString().getValue().isEmpty()
                || index.asString().getValue().startsWith("$"))) {
            throw new CommandException(ErrorCode.BadValue, "includeArrayIndex option to $unwind stage should be a "
                    + "non-empty string not prefixed with a '$': " + index);
        }
        BsonValue preserve = spec.get("preserveNullAndEmptyArrays", BsonBoolean.FALSE);
        if (!preserve.isBoolean()) {
            throw new CommandException(ErrorCode.BadValue, "expected a boolean for the preserveNullAndEmptyArrays option to "
                    + "$unwind stage, got " + preserve);
        }
        return new UnwindStage(path(spec.get("path")), index == null ? null : index.asString().getValue(),
                preserve.asBoolean().getValue());
    }

    private static List<String> path(BsonValue value) {
        if (!value.isString() || !value.asString().getValue().startsWith("$") || value.asString().getValue().length() < 2) {
            throw new CommandException(ErrorCode.BadValue,
                    "path option to $unwind stage should be prefixed with a '$': " + value);
        }
        return Paths.split(value.asString().getValue().substring(1));
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.<BsonDocument>mapMulti((doc, out) -> {
            BsonValue value = Documents.get(doc, path);
            if (value != null && value.isArray() && !value.asArray().isEmpty()) {
                for (int i = 0; i < value.asArray().size(); i++) {
                    out.accept(withIndex(Documents.with(doc, path, value.asArray().get(i)), new BsonInt64(i)));
                }
            } else if (value != null && !value.isNull() && !value.isArray()) {
                out.accept(withIndex(doc, BsonNull.VALUE));
            } else if (preserve) {
                out.accept(withIndex(doc, BsonNull.VALUE));
            }
        });
    }

    private BsonDocument withIndex(BsonDocument doc, BsonValue index) {
        return indexField == null ? doc : Documents.with(doc, Paths.split(indexField), index);
    }
}
