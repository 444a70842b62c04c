/**
 * The operator's web console (docs/architecture.md "The operator's console"): its Spring Boot application, its
 * {@code shardstore.console.*} settings, the client of the router's command API and the services' Actuator endpoints,
 * the views of the cluster it reads from them, and the pages' controller.
 */
@NullMarked
package dev.shardstore.console;

import org.jspecify.annotations.NullMarked;
