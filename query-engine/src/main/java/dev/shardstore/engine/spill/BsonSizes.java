package dev.shardstore.engine.spill;

import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * An estimate of the bytes a value holds, cheap enough to take per document and per accumulated value: its BSON size
 * give or take the type bytes and terminators (strings and binaries by length, containers as the sum of their
 * elements and field names, every other value 8 bytes). What the budgets of the blocking stages count.
 */
public final class BsonSizes {
    private BsonSizes() {}

    /** The estimated size of {@code value} in bytes; 0 for missing (null). */
    public static long of(@Nullable BsonValue value) {
        if (value == null) {
            return 0;
        }
        return switch (value.getBsonType()) {
            case STRING -> 5 + value.asString().getValue().length();
            case SYMBOL -> 5 + value.asSymbol().getSymbol().length();
            case BINARY -> 5 + value.asBinary().getData().length;
            case DOCUMENT -> ofDocument(value.asDocument());
            case ARRAY -> ofArray(value.asArray());
            case JAVASCRIPT -> 5 + value.asJavaScript().getCode().length();
            case REGULAR_EXPRESSION -> 2 + value.asRegularExpression().getPattern().length() + value.asRegularExpression().getOptions().length();
            default -> 8;
        };
    }

    /** The estimated size of a document: its elements' names and values, 5 bytes of framing. */
    public static long ofDocument(BsonDocument document) {
        long size = 5;
        for (Map.Entry<String, BsonValue> element : document.entrySet()) {
            size += 2 + element.getKey().length() + of(element.getValue());
        }
        return size;
    }

    private static long ofArray(BsonArray array) {
        long size = 5;
        for (BsonValue element : array) {
            size += 3 + of(element);
        }
        return size;
    }
}
