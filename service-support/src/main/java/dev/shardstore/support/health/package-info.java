/**
 * Health indicators every service reports on {@code /actuator/health} besides Spring Boot's own: the Kafka connection.
 */
@NullMarked
package dev.shardstore.support.health;

import org.jspecify.annotations.NullMarked;
