package dev.shardstore.engine.query;

import org.bson.BsonType;

/** MongoDB's type aliases ({@code $type} names, e.g. {@code "string"}, {@code "objectId"}) used in messages. */
public final class TypeNames {
    private TypeNames() {}

    /** The alias of {@code type}. */
    public static String of(BsonType type) {
        return switch (type) {
            case DOUBLE -> "double";
            case STRING -> "string";
            case DOCUMENT -> "object";
            case ARRAY -> "array";
            case BINARY -> "binData";
            case UNDEFINED -> "undefined";
            case OBJECT_ID -> "objectId";
            case BOOLEAN -> "bool";
            case DATE_TIME -> "date";
            case NULL -> "null";
            case REGULAR_EXPRESSION -> "regex";
            case DB_POINTER -> "dbPointer";
            case JAVASCRIPT -> "javascript";
            case SYMBOL -> "symbol";
            case JAVASCRIPT_WITH_SCOPE -> "javascriptWithScope";
            case INT32 -> "int";
            case TIMESTAMP -> "timestamp";
            case INT64 -> "long";
            case DECIMAL128 -> "decimal";
            case MIN_KEY -> "minKey";
            case MAX_KEY -> "maxKey";
            case END_OF_DOCUMENT -> "missing";
        };
    }
}
