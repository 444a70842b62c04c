package dev.shardstore.console;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.console.*}: where the console finds the cluster. Commands go to the first router; every URL is a
 * service's HTTP base ({@code http://host:port}), whose {@code /actuator/health} the overview shows. Shards are not
 * configured: the console finds them with {@code listShards}.
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
 */
@ConfigurationProperties("shardstore.console")
public record ConsoleProperties(List<String> routerUrls, String configUrl, String balancerUrl, String sessionUrl,
                                String reshardingUrl, @Nullable String swaggerUrl, @DefaultValue("2s") Duration requestTimeout) {
    public ConsoleProperties {
        routerUrls = List.copyOf(routerUrls);
        if (routerUrls.isEmpty()) {
            throw new IllegalArgumentException("shardstore.console.router-urls must name at least one router");
        }
        Objects.requireNonNull(configUrl, "shardstore.console.config-url");
        Objects.requireNonNull(balancerUrl, "shardstore.console.balancer-url");
        Objects.requireNonNull(sessionUrl, "shardstore.console.session-url");
        Objects.requireNonNull(reshardingUrl, "shardstore.console.resharding-url");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("shardstore.console.request-timeout must be positive, was " + requestTimeout);
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
}
