package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One field of a document, or one position of an array, being updated in place on a working copy.
 * Array positions follow MongoDB's update rules: setting past the end pads with nulls, and removing
 * ({@code $unset}) an element sets it to null so that the other positions do not shift. Padding more
 * than 1,500,000 nulls is BadValue, as in MongoDB.
 */
abstract sealed class Slot {
    /** The slot {@code name} of a document or array; the caller ensures an array's name is an index. */
    static Slot of(BsonValue container, String name) {
        return container.isArray()
                ? new ArrayPosition(container.asArray(), name.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(name))
                : new DocumentField(container.asDocument(), name);
    }

    /** The current value, or {@code null} when the field is missing or the position is past the end. */
    abstract @Nullable BsonValue get();

    abstract void set(BsonValue value);

    abstract void remove();

    private static final class DocumentField extends Slot {
        private final BsonDocument document;
        private final String name;

        DocumentField(BsonDocument document, String name) {
            this.document = document;
            this.name = name;
        }

        @Override
        @Nullable BsonValue get() {
            return document.get(name);
        }

        @Override
        void set(BsonValue value) {
            document.put(name, value); // an existing field keeps its position; a new one is appended
        }

        @Override
        void remove() {
            document.remove(name);
        }
    }

    private static final class ArrayPosition extends Slot {
        /** MongoDB's {@code kMaxPaddingAllowed}. */
        private static final int MAX_PADDING = 1_500_000;

        private final BsonArray array;
        private final int index;

        ArrayPosition(BsonArray array, int index) {
            this.array = array;
            this.index = index;
        }

        @Override
        @Nullable BsonValue get() {
            return index < array.size() ? array.get(index) : null;
        }

        @Override
        void set(BsonValue value) {
            if (index - array.size() > MAX_PADDING) {
                throw new CommandException(ErrorCode.BadValue, "can't backfill more than " + MAX_PADDING + " elements");
            }
            while (array.size() <= index) {
                array.add(BsonNull.VALUE);
            }
            array.set(index, value);
        }

        @Override
        void remove() {
            if (index < array.size()) {
                array.set(index, BsonNull.VALUE);
            }
        }
    }
}
