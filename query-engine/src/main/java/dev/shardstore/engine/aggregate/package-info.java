/**
 * The aggregation pipeline: parsing of {@code [{$stage: ...}, ...]} into stages, the stages themselves ({@code $match},
 * {@code $group}, {@code $lookup}, {@code $facet}, ...) and the pipeline form of updates. Shards run whole pipelines;
 * routers run the merging part of a split one.
 */
@NullMarked
package dev.shardstore.engine.aggregate;

import org.jspecify.annotations.NullMarked;
