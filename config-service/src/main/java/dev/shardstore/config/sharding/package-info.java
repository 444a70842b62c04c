/**
 * The DDL coordinators of the config server ({@code shardCollection}, {@code dropCollection}, {@code movePrimary},
 * chunk splits and moves): each a resumable sequence of phases persisted in the catalog, run and resumed by one
 * framework, and the refresh of shards after a change.
 */
@NullMarked
package dev.shardstore.config.sharding;

import org.jspecify.annotations.NullMarked;
