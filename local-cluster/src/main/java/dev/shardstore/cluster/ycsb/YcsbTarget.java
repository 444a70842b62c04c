package dev.shardstore.cluster.ycsb;

import java.util.List;

/**
 * What {@code ./cluster ycsb} drives: the router through its REST API or its MongoDB wire protocol, or the
 * direct-PostgreSQL baseline on one shard's database ({@link PostgresBinding}).
 *
 * @param name    as printed, {@code router}, {@code wire} or {@code postgres}
 * @param binding the YCSB {@code DB} class
 */
public record YcsbTarget(String name, Class<? extends site.ycsb.DB> binding) {
    /** The router's REST command API. */
    public static final YcsbTarget ROUTER = new YcsbTarget("router", RouterBinding.class);
    /** The router's MongoDB wire protocol, through the official Java driver. */
    public static final YcsbTarget WIRE = new YcsbTarget("wire", WireBinding.class);
    /** Plain SQL on one shard's database. */
    public static final YcsbTarget POSTGRES = new YcsbTarget("postgres", PostgresBinding.class);

    /** True for the targets that go through the router (loaded through its REST API). */
    public boolean throughRouter() {
        return this != POSTGRES;
    }

    /**
     * {@code router}, {@code wire}, {@code postgres}, {@code both} (router, then postgres) or {@code all} (router, wire,
     * postgres).
     *
     * @throws IllegalArgumentException for another name, naming {@code --target}
     */
    public static List<YcsbTarget> parse(String name) {
        return switch (name) {
            case "router" -> List.of(ROUTER);
            case "wire" -> List.of(WIRE);
            case "postgres" -> List.of(POSTGRES);
            case "both" -> List.of(ROUTER, POSTGRES);
            case "all" -> List.of(ROUTER, WIRE, POSTGRES);
            default -> throw new IllegalArgumentException("--target must be router, wire, postgres, both or all; was " + name);
        };
    }
}
