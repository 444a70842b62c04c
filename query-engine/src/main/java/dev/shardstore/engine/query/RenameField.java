package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * {@code $rename: {<from>: <to>}} (MongoDB manual, "$rename"), as MongoDB's {@code RenameNode}: the operation
 * sits at the destination path of the {@link UpdateTree} (a no-op {@link #placeholder()} holds the source path
 * so that conflicts are detected); applying it takes the source's value from the document, removes the source
 * and sets the destination. A missing source is a no-op. Neither path may go through an array.
 *
 * <p>Errors (BadValue, 2), at parse time: "The 'to' field for $rename must be a string"; "The source and target
 * field for $rename must differ"; "... must not be on the same path"; "The destination field for $rename may not
 * be dynamic"; when applied: "The source field cannot be an array element", "The destination field cannot be an
 * array element".
 *
 * @param from the source path's components
 * @param to the destination path
 */
record RenameField(List<String> from, String to) implements UpdateOperation {
    /** The destination path of a rename, from its argument. @throws CommandException as listed on the class */
    static String destination(String from, BsonValue argument) {
        if (!argument.isString()) {
            throw new CommandException(ErrorCode.BadValue,
                    "The 'to' field for $rename must be a string: " + Values.element(from, argument));
        }
        String to = argument.asString().getValue();
        if (to.equals(from)) {
            throw new CommandException(ErrorCode.BadValue,
                    "The source and target field for $rename must differ: " + Values.element(from, argument));
        }
        if (to.startsWith(from + ".") || from.startsWith(to + ".")) {
            throw new CommandException(ErrorCode.BadValue,
                    "The source and target field for $rename must not be on the same path: " + Values.element(from, argument));
        }
        if (Paths.split(to).stream().anyMatch(component -> component.startsWith("$"))) {
            throw new CommandException(ErrorCode.BadValue,
                    "The destination field for $rename may not be dynamic: " + to);
        }
        return to;
    }

    /** The no-op leaf at the source path. */
    static UpdateOperation placeholder() {
        return new UpdateOperation() {
            @Override
            public boolean createsPath() {
                return false;
            }

            @Override
            public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {}
        };
    }

    @Override
    public boolean createsPath() {
        return true;
    }

    @Override
    public void apply(Slot slot, @Nullable BsonValue existing, UpdateContext context) {
        BsonDocument parent = parentOf(context.root(), from, "source", String.join(".", from));
        String field = from.get(from.size() - 1);
        if (parent == null || !parent.containsKey(field)) {
            return;
        }
        parentOf(context.root(), Paths.split(to), "destination", to);
        BsonValue value = parent.remove(field);
        if (existing != null) {
            slot.remove(); // an existing destination is replaced, and the field moves to the end
        }
        slot.set(value);
    }

    /**
     * The document holding the last component of {@code path}, or {@code null} when the path does not reach one.
     *
     * @throws CommandException BadValue when the path goes through an array
     */
    private static @Nullable BsonDocument parentOf(BsonDocument root, List<String> path, String role, String dotted) {
        BsonValue current = root;
        for (String component : path.subList(0, path.size() - 1)) {
            current = current.asDocument().get(component);
            if (current != null && current.isArray()) {
                throw new CommandException(ErrorCode.BadValue,
                        "The " + role + " field cannot be an array element, '" + dotted + "' in doc with "
                                + Values.element(component, current) + " has an array field called '" + component + "'");
            }
            if (current == null || !current.isDocument()) {
                return null;
            }
        }
        return current.asDocument();
    }
}
