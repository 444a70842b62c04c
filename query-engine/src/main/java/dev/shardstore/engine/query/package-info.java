/**
 * Query filters, update operators, projection and sort with MongoDB's semantics: parsing each into an immutable tree, and
 * matching, updating or shaping documents with it, including implicit array traversal on dotted paths.
 */
@NullMarked
package dev.shardstore.engine.query;

import org.jspecify.annotations.NullMarked;
