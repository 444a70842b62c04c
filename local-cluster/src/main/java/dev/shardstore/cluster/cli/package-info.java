/**
 * The {@code ./cluster} command line (picocli): one command class per verb ({@code up}, {@code status}, {@code load},
 * {@code move}, {@code balance}, {@code ycsb}, ...) and the views they print.
 */
@NullMarked
package dev.shardstore.cluster.cli;

import org.jspecify.annotations.NullMarked;
