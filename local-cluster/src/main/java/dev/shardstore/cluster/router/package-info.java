/**
 * The launcher's client of a router's REST command API: a command document as Extended JSON in, the reply out.
 */
@NullMarked
package dev.shardstore.cluster.router;

import org.jspecify.annotations.NullMarked;
