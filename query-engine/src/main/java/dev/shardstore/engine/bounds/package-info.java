/**
 * Index bounds derived from a query filter, as MongoDB's planner derives them: per key field, intervals of values in BSON
 * order. Shards use them to scan an index; routers to target the chunks a filter can reach.
 */
@NullMarked
package dev.shardstore.engine.bounds;

import org.jspecify.annotations.NullMarked;
