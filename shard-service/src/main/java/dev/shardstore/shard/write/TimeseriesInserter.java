package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.query.IdField;
import dev.shardstore.engine.timeseries.Bucket;
import dev.shardstore.shard.storage.CollectionInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * The write path of {@code insert} into a time-series collection (MongoDB manual, "Insert Measurements into a Time
 * Series Collection"): each measurement gets an {@code _id} (a new ObjectId when missing) and must have a date in
 * the time field; the valid ones go into buckets through the {@link BucketCatalog}, all in one transaction. A
 * measurement without a date time field is a write error at its index (BadValue (2) naming the field), as are an
 * invalid {@code _id} and a measurement over 16 MiB; an ordered batch writes the measurements before the first
 * error only, an unordered one every valid measurement.
 */
@Component
public class TimeseriesInserter {
    private final BucketCatalog buckets;

    TimeseriesInserter(BucketCatalog buckets) {
        this.buckets = buckets;
    }

    /** Inserts {@code measurements} into the time-series collection whose buckets are {@code collection}. */
    public WriteResult insert(OperationContext opCtx, CollectionInfo collection, TimeseriesOptions options, List<BsonDocument> measurements, boolean ordered) {
        WriteResult result = new WriteResult();
        List<BsonDocument> valid = new ArrayList<>(measurements.size());
        for (int i = 0; i < measurements.size(); i++) {
            BsonDocument measurement = DocumentInserter.withIdFirst(measurements.get(i));
            try {
                Bucket.timeOf(options, measurement);
                IdField.requireValid(Objects.requireNonNull(measurement.get("_id"), "withIdFirst gives every measurement an _id"));
                Documents.encodeWithinLimit(measurement, "object to insert too large");
                valid.add(measurement);
            } catch (CommandException e) {
                result.addError(new WriteError(i, e));
                if (ordered) {
                    break;
                }
            }
        }
        if (!valid.isEmpty()) {
            buckets.insert(opCtx, collection, options, valid);
            result.addN(valid.size());
        }
        return result;
    }
}
