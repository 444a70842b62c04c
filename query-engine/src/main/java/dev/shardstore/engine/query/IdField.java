package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * The restrictions on a stored document's {@code _id} (MongoDB manual, "Documents", field names: "_id" "may be of
 * any type other than an array, regex, or undefined. If the _id contains subfields, the subfield names cannot begin
 * with a ($) symbol"), checked on every document an insert, a replacement, a pipeline-style update or an upsert
 * stores.
 */
public final class IdField {
    private IdField() {}

    /**
     * Checks an {@code _id} value.
     *
     * @throws CommandException InvalidIdField (53) "The '_id' value cannot be of type array" (also regex, undefined);
     *     DollarPrefixedFieldName (52) "_id fields may not contain '$'-prefixed fields: $a is not valid for storage."
     *     for a {@code $}-prefixed field name at any depth inside an {@code _id} document
     */
    public static void requireValid(BsonValue id) {
        BsonType type = id.getBsonType();
        if (type == BsonType.ARRAY || type == BsonType.REGULAR_EXPRESSION || type == BsonType.UNDEFINED) {
            throw new CommandException(ErrorCode.InvalidIdField, "The '_id' value cannot be of type " + TypeNames.of(type));
        }
        requireNoDollarNames(id);
    }

    private static void requireNoDollarNames(BsonValue value) {
        if (value.isDocument()) {
            value.asDocument().forEach((name, child) -> {
                if (name.startsWith("$")) {
                    throw new CommandException(ErrorCode.DollarPrefixedFieldName, "_id fields may not contain '$'-prefixed"
                            + " fields: " + name + " is not valid for storage.");
                }
                requireNoDollarNames(child);
            });
        } else if (value.isArray()) {
            value.asArray().forEach(IdField::requireNoDollarNames);
        }
    }
}
