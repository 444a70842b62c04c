package dev.shardstore.router.testing;

import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.router.cursor.CursorSessions;
import dev.shardstore.support.security.UserName;
import java.util.List;

/** {@link CursorSessions} for a front end whose commands open no router cursors (the listener tests' stub handlers). */
public final class NoCursors implements CursorSessions {
    @Override
    public void bindSession(long id, LogicalSessionId lsid) {
    }

    @Override
    public void bindOwner(long id, List<UserName> users) {
    }
}
