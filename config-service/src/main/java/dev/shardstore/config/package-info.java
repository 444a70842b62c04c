/**
 * The config server: the Spring Boot application that owns the cluster's authoritative catalog. Its packages hold the
 * catalog tables, the commands, the DDL coordinators, settings, signing keys and the outbox of catalog events.
 */
@NullMarked
package dev.shardstore.config;

import org.jspecify.annotations.NullMarked;
