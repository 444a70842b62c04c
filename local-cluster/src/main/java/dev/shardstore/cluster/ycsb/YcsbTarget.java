package dev.shardstore.cluster.ycsb;

import java.util.List;

/**
 * What {@code ./cluster ycsb} drives: the router's REST API, or the direct-PostgreSQL baseline on one
 * shard's database ({@link PostgresBinding}).
 *
 * @param name    as printed, {@code router} or {@code postgres}
 * @param binding the YCSB {@code DB} class
 */
public record YcsbTarget(String name, Class<? extends site.ycsb.DB> binding) {
    /** The router's REST command API. */
    public static final YcsbTarget ROUTER = new YcsbTarget("router", RouterBinding.class);
    /** Plain SQL on one shard's database. */
    public static final YcsbTarget POSTGRES = new YcsbTarget("postgres", PostgresBinding.class);

    /** {@code router}, {@code postgres} or {@code both} (router first). */
    public static List<YcsbTarget> parse(String name) {
        return switch (name) {
            case "router" -> List.of(ROUTER);
            case "postgres" -> List.of(POSTGRES);
            case "both" -> List.of(ROUTER, POSTGRES);
            default -> throw new IllegalArgumentException("--target must be router, postgres or both; was " + name);
        };
    }
}
