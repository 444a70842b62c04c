package dev.shardstore.cluster;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What a component of the local cluster is; services name the Maven module whose jar runs them. */
public enum Role {
    POSTGRES(null),
    KAFKA(null),
    CONFIG("config-service"),
    SHARD("shard-service"),
    ROUTER("router-service"),
    BALANCER("balancer-service"),
    RESHARDING("resharding-service"),
    SESSION("session-service"),
    /** The operator's web console (issue 41), started when the cluster is planned with one. */
    CONSOLE("console-service");

    private final @Nullable String module;

    Role(@Nullable String module) {
        this.module = module;
    }

    /** The service's Maven module (= artifactId = jar name), empty for PostgreSQL and Kafka. */
    public Optional<String> module() {
        return Optional.ofNullable(module);
    }

    /** Whether this is a Spring Boot service (health at {@code /actuator/health}) rather than infrastructure. */
    public boolean isService() {
        return module != null;
    }
}
