/**
 * BSON as every service handles it: binary encoding and Extended JSON, MongoDB's order of values, collation, the limits
 * and validation applied before anything recursive reads a document, typed reads of command fields and success replies.
 * No state: every type here is a value or a set of pure functions.
 */
@NullMarked
package dev.shardstore.contracts.bson;

import org.jspecify.annotations.NullMarked;
