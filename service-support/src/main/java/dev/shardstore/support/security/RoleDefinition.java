package dev.shardstore.support.security;

import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A user-defined role as {@code admin.system.roles} stores it: {@code {_id: "<db>.<role>", role, db, privileges:
 * [...], roles: [{role, db}]}}.
 *
 * @param name       the role
 * @param privileges its own privileges
 * @param roles      the roles it inherits from
 */
public record RoleDefinition(RoleName name, List<Privilege> privileges, List<RoleName> roles) {
    public RoleDefinition {
        Objects.requireNonNull(name, "name");
        privileges = List.copyOf(privileges);
        roles = List.copyOf(roles);
    }

    /** The stored document. */
    public BsonDocument toBson() {
        BsonArray privilegeDocs = new BsonArray();
        privileges.forEach(p -> privilegeDocs.add(p.toBson()));
        return new BsonDocument("_id", new BsonString(name.db() + "." + name.role()))
                .append("role", new BsonString(name.role())).append("db", new BsonString(name.db()))
                .append("privileges", privilegeDocs).append("roles", roleArray(roles));
    }

    /** Reads a stored document ({@link #toBson}). */
    public static RoleDefinition parse(BsonDocument document) {
        RoleName name = new RoleName(document.getString("role").getValue(), document.getString("db").getValue());
        return new RoleDefinition(name, document.getArray("privileges", new BsonArray()).stream().map(Privilege::parse).toList(),
                roleNames(document.getArray("roles", new BsonArray()), name.db()));
    }

    /** {@code [{role, db}, ...]}. */
    public static BsonArray roleArray(List<RoleName> roles) {
        BsonArray array = new BsonArray();
        roles.forEach(r -> array.add(r.toBson()));
        return array;
    }

    /** The roles of a {@code roles} array, a bare name being a role of {@code defaultDb}. */
    public static List<RoleName> roleNames(BsonArray roles, String defaultDb) {
        return roles.stream().map((BsonValue v) -> RoleName.parse(v, defaultDb)).distinct().toList();
    }
}
