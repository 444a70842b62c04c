package dev.shardstore.config.security;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.support.security.RoleDefinition;
import dev.shardstore.support.security.RoleName;
import dev.shardstore.support.security.UserName;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code admin.system.users} (table {@code system_users}) and {@code admin.system.roles} (table {@code system_roles}),
 * the documents as MongoDB stores them, and the user cache generation every change moves on in the same transaction
 * ({@link #change}). Reads go to PostgreSQL each time: user commands and authentications are rare next to the
 * commands they authorize, which routers check against the principal they cached.
 */
@Component
public class UserCatalog {
    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    public UserCatalog(JdbcClient jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    /**
     * Runs {@code change} in one transaction, serialized with every other user or role change (the generation row is
     * locked first), and moves the user cache generation on when it commits.
     */
    public <T> T change(Supplier<T> change) {
        return tx.execute(status -> {
            jdbc.sql("UPDATE user_cache_generation SET generation = generation + 1").update();
            return change.get();
        });
    }

    /** The user cache generation: it moves on with every committed change. */
    public long generation() {
        return jdbc.sql("SELECT generation FROM user_cache_generation").query(Long.class).single();
    }

    /** The user's document, if the user exists. */
    public Optional<BsonDocument> user(UserName name) {
        return jdbc.sql("SELECT doc FROM system_users WHERE id = ?").param(name.id())
                .query((rs, n) -> BsonBytes.decode(rs.getBytes("doc"))).optional();
    }

    /** The users of {@code db} (every database's when null), ordered by {@code _id}. */
    public List<BsonDocument> users(@Nullable String db) {
        return db == null
                ? jdbc.sql("SELECT doc FROM system_users ORDER BY id").query((rs, n) -> BsonBytes.decode(rs.getBytes("doc"))).list()
                : jdbc.sql("SELECT doc FROM system_users WHERE db = ? ORDER BY id").param(db)
                        .query((rs, n) -> BsonBytes.decode(rs.getBytes("doc"))).list();
    }

    /** True when any user exists (the localhost exception is closed). */
    public boolean anyUser() {
        return jdbc.sql("SELECT EXISTS (SELECT 1 FROM system_users)").query(Boolean.class).single();
    }

    /** Adds the user; false when one of that name exists. Call within {@link #change}. */
    public boolean insertUser(UserName name, BsonDocument document) {
        return jdbc.sql("INSERT INTO system_users (id, db, user_name, doc) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
                .params(name.id(), name.db(), name.user(), BsonBytes.encode(document)).update() == 1;
    }

    /** Replaces the user's document; false when the user does not exist. Call within {@link #change}. */
    public boolean replaceUser(UserName name, BsonDocument document) {
        return jdbc.sql("UPDATE system_users SET doc = ? WHERE id = ?").params(BsonBytes.encode(document), name.id()).update() == 1;
    }

    /** Removes the user; false when it did not exist. Call within {@link #change}. */
    public boolean deleteUser(UserName name) {
        return jdbc.sql("DELETE FROM system_users WHERE id = ?").param(name.id()).update() == 1;
    }

    /** Removes every user of {@code db}: how many there were. Call within {@link #change}. */
    public int deleteUsers(String db) {
        return jdbc.sql("DELETE FROM system_users WHERE db = ?").param(db).update();
    }

    /** The user-defined role, if it exists. */
    public Optional<RoleDefinition> role(RoleName name) {
        return jdbc.sql("SELECT doc FROM system_roles WHERE id = ?").param(name.db() + "." + name.role())
                .query((rs, n) -> RoleDefinition.parse(BsonBytes.decode(rs.getBytes("doc")))).optional();
    }

    /** The user-defined roles of {@code db} (every database's when null), ordered by {@code _id}. */
    public List<RoleDefinition> roles(@Nullable String db) {
        return (db == null ? jdbc.sql("SELECT doc FROM system_roles ORDER BY id")
                : jdbc.sql("SELECT doc FROM system_roles WHERE db = ? ORDER BY id").param(db))
                .query((rs, n) -> RoleDefinition.parse(BsonBytes.decode(rs.getBytes("doc")))).list();
    }

    /** Adds the role; false when one of that name exists. Call within {@link #change}. */
    public boolean insertRole(RoleDefinition role) {
        return jdbc.sql("INSERT INTO system_roles (id, db, role_name, doc) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
                .params(role.name().db() + "." + role.name().role(), role.name().db(), role.name().role(), BsonBytes.encode(role.toBson()))
                .update() == 1;
    }

    /** Replaces the role; false when it does not exist. Call within {@link #change}. */
    public boolean replaceRole(RoleDefinition role) {
        return jdbc.sql("UPDATE system_roles SET doc = ? WHERE id = ?")
                .params(BsonBytes.encode(role.toBson()), role.name().db() + "." + role.name().role()).update() == 1;
    }

    /** Removes the role; false when it did not exist. Call within {@link #change}. */
    public boolean deleteRole(RoleName name) {
        return jdbc.sql("DELETE FROM system_roles WHERE id = ?").param(name.db() + "." + name.role()).update() == 1;
    }
}
