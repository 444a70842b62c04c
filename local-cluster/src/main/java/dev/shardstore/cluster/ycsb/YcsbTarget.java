package dev.shardstore.cluster.ycsb;

import java.util.Arrays;
import java.util.HashSet;
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
     * {@code router}, {@code wire}, {@code postgres}, {@code both} (router, then postgres), {@code all} (router, wire,
     * postgres), or a comma-separated list of the first three in the order they are to run (e.g. {@code wire,postgres}).
     *
     * @throws IllegalArgumentException for another name or a target named twice, naming {@code --target}
     */
    public static List<YcsbTarget> parse(String name) {
        List<YcsbTarget> targets = switch (name) {
            case "both" -> List.of(ROUTER, POSTGRES);
            case "all" -> List.of(ROUTER, WIRE, POSTGRES);
            default -> Arrays.stream(name.split(",", -1)).map(YcsbTarget::one).toList();
        };
        if (new HashSet<>(targets).size() != targets.size()) {
            throw new IllegalArgumentException("--target names a target twice: " + name);
        }
        return targets;
    }

    private static YcsbTarget one(String name) {
        return switch (name) {
            case "router" -> ROUTER;
            case "wire" -> WIRE;
            case "postgres" -> POSTGRES;
            default -> throw new IllegalArgumentException(
                    "--target must be router, wire, postgres (or a comma-separated list of them), both or all; was " + name);
        };
    }
}
