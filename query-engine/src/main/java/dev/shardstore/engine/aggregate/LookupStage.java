package dev.shardstore.engine.aggregate;

import java.util.stream.Stream;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.Expression;
import dev.shardstore.engine.aggregate.expression.ExpressionParser;
import dev.shardstore.engine.aggregate.expression.Variables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Paths;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * {@code {$lookup: {from: <collection>, localField: <path>, foreignField: <path>, as: <path>}}} (MongoDB manual,
 * "$lookup", equality match): adds to each document the array of documents of {@code from} (an unsharded
 * collection of the same database, read through {@link CollectionSource}) whose {@code foreignField} equals the
 * document's {@code localField}. Equality is the query's: when {@code localField} is an array (or runs through
 * one) any element may match, a missing {@code localField} matches null and missing foreign fields, a
 * foreign array field matches by element, and strings are equal under the command's collation (MongoDB manual,
 * "$lookup": the aggregate's collation applies to the match). The foreign documents are found with the filter
 * {@code {<foreignField>: {$in: [<local values>]}}}.
 *
 * <p>Errors: BadValue (2) for a missing or non-string {@code from}, {@code localField}, {@code foreignField} or
 * {@code as}; the {@code pipeline}/{@code let} forms are not supported (NotImplemented (238)).
 */
final class LookupStage implements Stage {
    private final CollectionSource source;
    private final String from;
    private final Expression localField;
    private final String foreignField;
    private final List<String> as;
    private final CommandVariables variables;

    private LookupStage(CollectionSource source, String from, Expression localField, String foreignField, List<String> as,
            CommandVariables variables) {
        this.source = source;
        this.from = from;
        this.localField = localField;
        this.foreignField = foreignField;
        this.as = as;
        this.variables = variables;
    }

    static Stage parse(BsonDocument spec, CollectionSource source, CommandVariables variables) {
        if (spec.containsKey("pipeline") || spec.containsKey("let")) {
            throw new CommandException(ErrorCode.NotImplemented, "$lookup with 'pipeline' or 'let' is not supported");
        }
        for (String field : List.of("from", "localField", "foreignField", "as")) {
            if (!spec.isString(field) || spec.getString(field).getValue().isEmpty()) {
                throw new CommandException(ErrorCode.BadValue, "$lookup argument '" + field + "' must be a non-empty string");
            }
        }
        Expression local = ExpressionParser.INSTANCE.parse(new BsonString("$" + spec.getString("localField").getValue()));
        return new LookupStage(source, spec.getString("from").getValue(), local, spec.getString("foreignField").getValue(),
                Paths.split(spec.getString("as").getValue()), variables);
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        return input.map(doc -> {
            BsonValue local = localField.evaluate(Variables.of(doc));
            BsonArray values = local == null ? new BsonArray(List.of(BsonNull.VALUE))
                    : local.isArray() ? local.asArray() : new BsonArray(List.of(local));
            Filter filter = Filter.parse(new BsonDocument(foreignField, new BsonDocument("$in", values)), variables);
            return Documents.with(doc, as, new BsonArray(source.find(from, filter)));
        });
    }
}
