/**
 * Database and collection names, validated by MongoDB's rules (InvalidNamespace, 73), so that a name one service accepts
 * every other accepts too.
 */
@NullMarked
package dev.shardstore.contracts.namespace;

import org.jspecify.annotations.NullMarked;
