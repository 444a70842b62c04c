/**
 * {@code config.changelog}: one entry per metadata change worth a trace, in MongoDB's shape.
 */
@NullMarked
package dev.shardstore.config.changelog;

import org.jspecify.annotations.NullMarked;
