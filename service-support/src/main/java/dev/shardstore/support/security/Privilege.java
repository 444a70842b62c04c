package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A privilege: actions allowed on a resource pattern (MongoDB manual "Privileges"), as {@code createRole} takes it and
 * {@code rolesInfo} shows it: {@code {resource: {...}, actions: ["find", ...]}}.
 *
 * @param resource the resource pattern
 * @param actions  the actions, not empty
 */
public record Privilege(Resource resource, Set<ActionType> actions) {
    public Privilege {
        Objects.requireNonNull(resource, "resource");
        if (actions.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "a privilege names at least one action");
        }
        actions = Collections.unmodifiableSet(EnumSet.copyOf(actions));
    }

    /** {@code actions} on {@code resource}. */
    public static Privilege of(Resource resource, ActionType... actions) {
        return new Privilege(resource, Set.of(actions));
    }

    /** {@code {resource, actions}}, actions in MongoDB's order of this enum. */
    public BsonDocument toBson() {
        BsonArray names = new BsonArray();
        actions.forEach(a -> names.add(new BsonString(a.name())));
        return new BsonDocument("resource", resource.toBson()).append("actions", names);
    }

    /**
     * Reads {@code {resource: {...}, actions: [<string>, ...]}}.
     *
     * @throws CommandException FailedToParse (9) for another shape, BadValue (2) for an unknown action
     */
    public static Privilege parse(BsonValue value) {
        if (!value.isDocument() || !value.asDocument().isDocument("resource") || !value.asDocument().isArray("actions")) {
            throw new CommandException(ErrorCode.FailedToParse, "a privilege is {resource: {...}, actions: [...]}, was " + value);
        }
        EnumSet<ActionType> actions = EnumSet.noneOf(ActionType.class);
        for (BsonValue action : value.asDocument().getArray("actions")) {
            if (!action.isString()) {
                throw new CommandException(ErrorCode.FailedToParse, "a privilege's actions are strings, was " + action);
            }
            actions.add(ActionType.of(action.asString().getValue()));
        }
        return new Privilege(Resource.parse(value.asDocument().getDocument("resource")), actions);
    }
}
