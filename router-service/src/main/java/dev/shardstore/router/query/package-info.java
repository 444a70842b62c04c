/**
 * The router's read path: scatter-gather finds, counts, distincts and aggregations with their merge on the router,
 * explain, view resolution and the {@code $out}/{@code $merge} output stages.
 */
@NullMarked
package dev.shardstore.router.query;

import org.jspecify.annotations.NullMarked;
