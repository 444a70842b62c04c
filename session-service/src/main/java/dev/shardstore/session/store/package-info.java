/**
 * The sessions collection ({@code config.system.sessions}) in PostgreSQL, the commands through which nodes refresh,
 * find, list and remove sessions in it, and the reaper that expires sessions unused for longer than the timeout.
 */
@NullMarked
package dev.shardstore.session.store;

import org.jspecify.annotations.NullMarked;
