package dev.shardstore.cluster.ycsb;

import java.util.Locale;
import java.util.Map;

/**
 * YCSB's core workloads A, B, C, E and F: the operation mixes of YCSB's own {@code workloads/workload*}
 * files (which are not in the {@code site.ycsb:core} jar), run by {@code site.ycsb.workloads.CoreWorkload}.
 * D ("read latest") is left out, as the issue asks for A, B, C, E and F.
 */
public enum YcsbWorkload {
    /** Update heavy: 50% reads, 50% updates, zipfian keys. */
    A(Map.of("readproportion", "0.5", "updateproportion", "0.5", "scanproportion", "0", "insertproportion", "0")),
    /** Read mostly: 95% reads, 5% updates. */
    B(Map.of("readproportion", "0.95", "updateproportion", "0.05", "scanproportion", "0", "insertproportion", "0")),
    /** Read only: point reads by key. */
    C(Map.of("readproportion", "1", "updateproportion", "0", "scanproportion", "0", "insertproportion", "0")),
    /** Short ranges: 95% scans of up to 100 records (uniform length) from a zipfian start, 5% inserts. */
    E(Map.of("readproportion", "0", "updateproportion", "0", "scanproportion", "0.95", "insertproportion", "0.05",
            "maxscanlength", "100", "scanlengthdistribution", "uniform")),
    /** Read-modify-write: 50% reads, 50% read-then-update of the same record. */
    F(Map.of("readproportion", "0.5", "updateproportion", "0", "scanproportion", "0", "insertproportion", "0",
            "readmodifywriteproportion", "0.5"));

    private final Map<String, String> mix;

    YcsbWorkload(Map<String, String> mix) {
        this.mix = mix;
    }

    /** The workload's YCSB properties (operation proportions; every workload draws keys zipfian and reads all fields). */
    public Map<String, String> properties() {
        Map<String, String> p = new java.util.TreeMap<>(mix);
        p.put("workload", "site.ycsb.workloads.CoreWorkload");
        p.put("requestdistribution", "zipfian");
        p.put("readallfields", "true");
        return p;
    }

    /** {@code a}…{@code f}, any case. */
    public static YcsbWorkload parse(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--workload must be one of a, b, c, e, f; was " + name);
        }
    }
}
