package dev.shardstore.router.cursor;

import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.support.security.UserName;
import java.util.List;

/**
 * Who a router cursor belongs to ({@link RouterCursorManager}): its session, whose end kills it, and the users who
 * opened it, the only ones who may read or kill it.
 */
public interface CursorSessions {
    /** Makes cursor {@code id}, when open, belong to {@code lsid}. */
    void bindSession(long id, LogicalSessionId lsid);

    /** Makes cursor {@code id}, when open, readable by {@code users} alone (the authenticated users who opened it). */
    void bindOwner(long id, List<UserName> users);
}
