package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.spill.ExternalSorter;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillStats;
import java.util.stream.Stream;
import org.bson.BsonDocument;

/**
 * {@code {$sort: {<path>: 1 | -1, ...}}}: a stable sort with find's sort semantics ({@link Sort}), strings ordered under
 * the command's collation, within the sort budget of the command's {@link MemoryLimits} ({@link ExternalSorter}: over it
 * the sort spills to disk with {@code allowDiskUse}, and fails with QueryExceededMemoryLimitNoDiskUseAllowed (292)
 * without).
 * Errors: BadValue (2) for an empty specification ({@code "$sort stage must have at least one sort key"}) and
 * as {@link Sort#parse}.
 */
final class SortStage implements Stage {
    private final Sort sort;
    private final MemoryLimits limits;

    private SortStage(Sort sort, MemoryLimits limits) {
        this.sort = sort;
        this.limits = limits;
    }

    static Stage parse(BsonDocument spec, Collation collation, MemoryLimits limits) {
        if (spec.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "$sort stage must have at least one sort key");
        }
        return new SortStage(Sort.parse(spec, collation), limits);
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        ExternalSorter sorter = ExternalSorter.of("$sort", sort.comparator(), Long.MAX_VALUE, limits, new SpillStats());
        try (input) {
            input.forEachOrdered(sorter::add);
        } catch (RuntimeException | Error e) { // an OutOfMemoryError too: the spill files go, whatever ends the read
            sorter.close();
            throw e;
        }
        return sorter.sorted();
    }
}
