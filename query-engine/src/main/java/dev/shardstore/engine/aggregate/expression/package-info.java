/**
 * Aggregation expressions: the parser and the operator families (arithmetic, arrays, strings, dates, conversions, ...),
 * field and variable paths, and the variables a command defines. Used by pipeline stages, {@code $expr} and
 * pipeline-style updates.
 */
@NullMarked
package dev.shardstore.engine.aggregate.expression;

import org.jspecify.annotations.NullMarked;
