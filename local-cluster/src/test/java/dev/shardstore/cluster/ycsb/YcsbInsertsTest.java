package dev.shardstore.cluster.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;
import org.junit.jupiter.api.Test;

/** The keys {@link YcsbInserts} takes back are the ones YCSB's own transaction phase inserts. */
class YcsbInsertsTest {
    /** Records the keys YCSB inserts; every other operation answers OK. */
    public static final class Recording extends DB {
        final List<String> inserted = new ArrayList<>();

        @Override
        public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
            return Status.OK;
        }

        @Override
        public Status scan(String table, String startkey, int recordcount, Set<String> fields, Vector<HashMap<String, ByteIterator>> result) {
            return Status.OK;
        }

        @Override
        public Status update(String table, String key, Map<String, ByteIterator> values) {
            return Status.OK;
        }

        @Override
        public Status insert(String table, String key, Map<String, ByteIterator> values) {
            inserted.add(key);
            return Status.OK;
        }

        @Override
        public Status delete(String table, String key) {
            return Status.OK;
        }
    }

    @Test
    void theKeysAreThoseOfWorkloadEsInsertsAfterTheLoadedRecords() throws Exception {
        Map<String, String> properties = new HashMap<>(YcsbWorkload.E.properties());
        properties.put("recordcount", "2000");
        properties.put("operationcount", "25");
        properties.put("insertproportion", "1"); // every operation an insert, for the comparison
        properties.put("scanproportion", "0");
        Properties p = new Properties();
        p.putAll(properties);
        Measurements.setProperties(p);
        CoreWorkload workload = new CoreWorkload();
        workload.init(p);
        Recording db = new Recording();
        Object state = workload.initThread(p, 0, 1);
        for (int i = 0; i < 25; i++) {
            assertThat(workload.doTransaction(db, state)).isTrue();
        }
        assertThat(YcsbInserts.keys(properties, 25)).containsExactlyElementsOf(db.inserted);
        assertThat(YcsbInserts.keys(properties, 25)).doesNotContainAnyElementsOf(YcsbInserts.keys(Map.of("recordcount", "0"), 2000));
    }
}
