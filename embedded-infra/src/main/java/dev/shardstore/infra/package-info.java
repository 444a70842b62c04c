/**
 * Real PostgreSQL and Kafka servers for tests and the local cluster: embedded (zonky's PostgreSQL binaries, a KRaft
 * broker in the JVM) or, on request, Testcontainers' containers, behind one interface. Also the port checks and the
 * repair of half-unpacked binaries that starting them needs.
 */
@NullMarked
package dev.shardstore.infra;

import org.jspecify.annotations.NullMarked;
