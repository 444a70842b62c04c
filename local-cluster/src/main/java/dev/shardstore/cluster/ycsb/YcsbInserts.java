package dev.shardstore.cluster.ycsb;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * Takes back what a measured phase inserted (workload E), so that the next phase inserts fresh records. YCSB numbers a
 * transaction phase's inserts from {@code recordcount} on, so every run without a new load would insert the same keys,
 * and those inserts would fail as duplicates. The keys come from YCSB's own key naming; each is deleted through the
 * target's own binding, as YCSB would delete it.
 */
public final class YcsbInserts {
    /** YCSB's table, as the command runs it. */
    static final String TABLE = "usertable";

    private YcsbInserts() {
    }

    /**
     * The keys of the first {@code inserted} records a transaction phase inserts: YCSB's names for key numbers
     * {@code recordcount}, {@code recordcount + 1}, and so on.
     *
     * @param properties the phase's YCSB properties (at least {@code recordcount}; {@code insertorder} and
     *                   {@code zeropadding} shape the names)
     */
    public static List<String> keys(Map<String, String> properties, long inserted) {
        Properties p = new Properties();
        p.putAll(properties);
        p.setProperty("requestdistribution", "uniform"); // names do not depend on how keys are drawn; zipfian wants operationcount
        // a CoreWorkload takes YCSB's process-wide measurements when it is made; this process (the launcher) records none
        Measurements.setProperties(p);
        KeyNames names = new KeyNames();
        try {
            names.init(p);
        } catch (WorkloadException e) {
            throw new IllegalArgumentException("YCSB properties " + properties + ": " + e.getMessage(), e);
        }
        long first = Long.parseLong(properties.get("recordcount"));
        List<String> keys = new ArrayList<>();
        for (long keynum = first; keynum < first + inserted; keynum++) {
            keys.add(names.name(keynum));
        }
        return keys;
    }

    /**
     * Deletes the records of {@link #keys} from {@code target}'s table with {@code target}'s binding (a key that is
     * not there, an insert that failed, is no error).
     *
     * @throws IllegalStateException when the binding cannot start or a delete fails
     */
    public static void remove(YcsbTarget target, Map<String, String> properties, long inserted) {
        DB db;
        try {
            db = target.binding().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create the " + target.name() + " binding", e);
        }
        Properties p = new Properties();
        p.putAll(properties);
        db.setProperties(p);
        try {
            db.init();
            for (String key : keys(properties, inserted)) {
                Status status = db.delete(TABLE, key);
                if (!status.isOk() && status != Status.NOT_FOUND) {
                    throw new IllegalStateException("deleting the inserted record " + key + " from " + target.name() + " failed: " + status);
                }
            }
            db.cleanup();
        } catch (DBException e) {
            throw new IllegalStateException("the " + target.name() + " binding failed: " + e.getMessage(), e);
        }
    }

    /** YCSB's own key naming (hashed or ordered, zero padded), which is protected in {@link CoreWorkload}. */
    private static final class KeyNames extends CoreWorkload {
        String name(long keynum) {
            return buildKeyName(keynum);
        }
    }
}
