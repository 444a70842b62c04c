/**
 * Cluster settings and the balancer's records on the config server: {@code config.settings}, zones,
 * {@code config.actionlog}, the round counter, and the commands that read and change them.
 */
@NullMarked
package dev.shardstore.config.settings;

import org.jspecify.annotations.NullMarked;
