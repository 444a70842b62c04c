/**
 * The resharding coordinator service. For now it boots, connects to Kafka and reports health; resharding itself comes
 * with a later issue.
 */
@NullMarked
package dev.shardstore.resharding;

import org.jspecify.annotations.NullMarked;
