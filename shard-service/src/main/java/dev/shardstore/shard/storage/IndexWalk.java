package dev.shardstore.shard.storage;

import dev.shardstore.contracts.sharding.KeyRange;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Walks the entries of one index in key order without reading documents, for choosing split points (MongoDB's
 * {@code splitVector} walks the shard key index the same way): counts a key range and jumps a number of entries
 * ahead, one statement each, so memory stays bounded whatever the collection's size. An index is either the
 * {@code _id} index (the collection table, keyed by the {@code _id} KeyString) or a secondary index table
 * {@code (key, id)}; entries are ordered by {@code (key, id)}.
 */
@Repository
public class IndexWalk {
    private static final byte[] BEFORE_EVERY_ID = new byte[0];

    private final JdbcClient jdbc;

    public IndexWalk(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The entries of one index as SQL: a table name (service-generated, checked by {@link CollectionInfo} and
     * {@link IndexSpec}) and the column holding the key.
     */
    public record Source(String table, String keyColumn) {
        /** The {@code _id} index: the collection table, whose primary key is the {@code _id} KeyString. */
        public static Source idIndex(CollectionInfo c) {
            return new Source(c.table(), "id");
        }

        /** A secondary index table {@code (key, id)}. */
        public static Source of(IndexSpec index) {
            return new Source(index.table(), "key");
        }
    }

    /**
     * One index entry.
     *
     * @param key the index KeyString
     * @param id  the {@code _id} KeyString of its document
     */
    public record Entry(byte[] key, byte[] id) {
        /** A position just before every entry whose key is at or above {@code key}. */
        public static Entry before(byte[] key) {
            return new Entry(key, BEFORE_EVERY_ID);
        }
    }

    /** The number of entries whose key lies in {@code [low, high)}. */
    public long count(Source source, byte[] low, byte[] high) {
        return jdbc.sql("SELECT count(*) FROM " + source.table() + " WHERE " + source.keyColumn() + " >= ? AND "
                        + source.keyColumn() + " < ?")
                .param(low).param(high)
                .query(Long.class).single();
    }

    /**
     * The entry {@code steps} positions after {@code from} (0: the first entry at or after it), among those with
     * keys below {@code high}; empty when there are not that many.
     */
    public Optional<Entry> ahead(Source source, Entry from, long steps, byte[] high) {
        String key = source.keyColumn();
        return jdbc.sql("SELECT " + key + ", id FROM " + source.table() + " WHERE (" + key + ", id) >= (?, ?) AND "
                        + key + " < ? ORDER BY " + key + ", id OFFSET ? LIMIT 1")
                .param(from.key()).param(from.id()).param(high).param(steps)
                .query((rs, i) -> new Entry(rs.getBytes(1), rs.getBytes(2)))
                .optional();
    }

    /**
     * The collection's document count and data size (the sum of its documents' BSON sizes, MongoDB's
     * {@code dataSize}), in one aggregate that does not decode any document.
     */
    public DataSize dataSize(CollectionInfo c) {
        return jdbc.sql("SELECT count(*), coalesce(sum(octet_length(doc)), 0) FROM " + c.table())
                .query((rs, i) -> new DataSize(rs.getLong(1), rs.getLong(2)))
                .single();
    }

    /**
     * The collection's {@link #dataSize} together with that of its documents whose key in {@code index} falls in one of
     * {@code ranges}, which must not overlap: one statement, so one snapshot, that reads no document out (PostgreSQL sums
     * {@code octet_length}, which does not detoast). A shard's data distribution asks this with the ranges of the chunks
     * it does not own ({@code RoutingTable.unowned}), where its orphans are.
     */
    public RangeSizes dataSizes(CollectionInfo c, Source index, List<KeyRange> ranges) {
        byte[][] lows = ranges.stream().map(KeyRange::min).toArray(byte[][]::new);
        byte[][] highs = ranges.stream().map(KeyRange::max).toArray(byte[][]::new);
        String sized = "count(*), coalesce(sum(octet_length(d.doc)), 0)";
        String inRanges = index.table().equals(c.table())
                ? "SELECT " + sized + " FROM unnest(?::bytea[], ?::bytea[]) r(lo, hi) JOIN " + c.table() + " d ON d.id >= r.lo AND d.id < r.hi"
                : "SELECT " + sized + " FROM unnest(?::bytea[], ?::bytea[]) r(lo, hi) JOIN " + index.table()
                        + " i ON i." + index.keyColumn() + " >= r.lo AND i." + index.keyColumn() + " < r.hi JOIN " + c.table() + " d ON d.id = i.id";
        return jdbc.sql("SELECT * FROM (SELECT " + sized + " FROM " + c.table() + " d) a, (" + inRanges + ") s")
                .param(lows).param(highs)
                .query((rs, i) -> new RangeSizes(new DataSize(rs.getLong(1), rs.getLong(2)), new DataSize(rs.getLong(3), rs.getLong(4))))
                .single();
    }

    /**
     * Sizes from {@link #dataSizes}.
     *
     * @param all      the whole collection
     * @param inRanges the documents in the ranges asked for
     */
    public record RangeSizes(DataSize all, DataSize inRanges) {}

    /**
     * A collection's size.
     *
     * @param count documents
     * @param bytes the sum of their BSON sizes
     */
    public record DataSize(long count, long bytes) {
        public DataSize {
            if (count < 0 || bytes < 0) {
                throw new IllegalArgumentException("negative size: " + count + " documents, " + bytes + " bytes");
            }
        }

        /** MongoDB's {@code avgObjSize}: bytes per document, at least 1; 0 for an empty collection. */
        public long averageObjectSize() {
            return count == 0 ? 0 : Math.max(1, bytes / count);
        }
    }
}
