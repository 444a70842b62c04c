package dev.shardstore.router.cursor;

import dev.shardstore.contracts.session.LogicalSessionId;

/** Which session a router cursor belongs to ({@link RouterCursorManager}): its cursors die with the session. */
@FunctionalInterface
public interface CursorSessions {
    /** Makes cursor {@code id}, when open, belong to {@code lsid}. */
    void bindSession(long id, LogicalSessionId lsid);
}
