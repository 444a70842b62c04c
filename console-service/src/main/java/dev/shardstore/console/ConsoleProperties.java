package dev.shardstore.console;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.console.*}: where the console finds the cluster and who it is there. Commands go to the first
 * router; every URL is a service's HTTP base ({@code http://host:port}), whose {@code /actuator/health} the overview
 * shows. Shards are not configured: the console finds them with {@code listShards}.
 *
 * @param routerUrls     the routers, at least one; commands go through the first
 * @param configUrl      the config service
 * @param balancerUrl    the balancer service
 * @param sessionUrl     the session service
 * @param reshardingUrl  the resharding service
 * @param swaggerUrl     the router's Swagger UI as the operator's browser reaches it; empty for the first router's
 *                       {@code /swagger-ui}
 * @param requestTimeout the limit of one request to the cluster (2 s: a page updates every 2 s, and a down service must
 *                       show as down rather than hold the page)
 * @param username       the cluster user the console is (docs/architecture.md "The operator's console": roles
 *                       {@code clusterMonitor}, and {@code clusterManager} for its actions), {@code user} on
 *                       {@code admin} or {@code user@db}; null with {@code password} null for a cluster without
 *                       authorization
 * @param password       its password (from the environment, an argument or an imported file; never logged, and
 *                       masked in {@link #toString()})
 * @param sampleInterval how often the console reads each shard's command meters for the operations page's charts (5 s;
 *                       the charts keep the last 15 minutes, {@link MeterSampler})
 */
@ConfigurationProperties("shardstore.console")
public record ConsoleProperties(List<String> routerUrls, String configUrl, String balancerUrl, String sessionUrl,
                                String reshardingUrl, @Nullable String swaggerUrl, @DefaultValue("2s") Duration requestTimeout,
                                @Nullable String username, @Nullable String password, @DefaultValue("5s") Duration sampleInterval) {
    public ConsoleProperties {
        routerUrls = List.copyOf(routerUrls);
        if (routerUrls.isEmpty()) {
            throw new IllegalArgumentException("shardstore.console.router-urls must name at least one router");
        }
        Objects.requireNonNull(configUrl, "shardstore.console.config-url");
        Objects.requireNonNull(balancerUrl, "shardstore.console.balancer-url");
        Objects.requireNonNull(sessionUrl, "shardstore.console.session-url");
        Objects.requireNonNull(reshardingUrl, "shardstore.console.resharding-url");
        requirePositive(requestTimeout, "request-timeout");
        requirePositive(sampleInterval, "sample-interval");
        if (blank(username) != blank(password)) {
            throw new IllegalArgumentException("shardstore.console.username and shardstore.console.password go together: "
                    + (blank(username) ? "password is set without username" : "username " + username + " is set without password"));
        }
        if (blank(username)) {
            username = null;
            password = null;
        }
    }

    /** A cluster without authorization's settings: the URLs, the 2 s timeout and the 5 s sample interval. */
    public static ConsoleProperties of(List<String> routerUrls, String configUrl, String balancerUrl, String sessionUrl,
            String reshardingUrl) {
        return new ConsoleProperties(routerUrls, configUrl, balancerUrl, sessionUrl, reshardingUrl, null, Duration.ofSeconds(2), null,
                null, Duration.ofSeconds(5));
    }

    private static boolean blank(@Nullable String value) {
        return value == null || value.isBlank();
    }

    private static void requirePositive(Duration duration, String name) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("shardstore.console." + name + " must be positive, was " + duration);
        }
    }

    /** The router that commands go through. */
    public String commandRouter() {
        return routerUrls.getFirst();
    }

    /** The Swagger UI link shown in the console's header. */
    public String swaggerLink() {
        return swaggerUrl == null || swaggerUrl.isBlank() ? commandRouter() + "/swagger-ui" : swaggerUrl;
    }

    /** Whether the console authenticates ({@link #username()} and {@link #password()} are set). */
    public boolean authenticates() {
        return username != null;
    }

    /** The settings with the password masked: a record's own {@code toString} would print it. */
    @Override
    public String toString() {
        return "ConsoleProperties[routerUrls=" + routerUrls + ", configUrl=" + configUrl + ", balancerUrl=" + balancerUrl + ", sessionUrl="
                + sessionUrl + ", reshardingUrl=" + reshardingUrl + ", swaggerUrl=" + swaggerUrl + ", requestTimeout=" + requestTimeout
                + ", username=" + username + ", password=" + (password == null ? "null" : "******") + ", sampleInterval=" + sampleInterval + "]";
    }
}
