/**
 * MongoDB-style fail points: named points in a protocol where a test makes the process crash, pause or fail, armed by
 * the {@code configureFailPoint} test command (registered only when test commands are enabled).
 */
@NullMarked
package dev.shardstore.support.failpoint;

import org.jspecify.annotations.NullMarked;
