-- Sharded time-series collections (issue 13, reference: sharded-timeseries "Sharding metadata"): the buckets
-- collection's entry in config.collections carries timeseriesFields, the time-series options as a BSON document
-- ({timeField, metaField?, granularity?, bucketMaxSpanSeconds, bucketRoundingSeconds?}); null for other collections.
ALTER TABLE collections ADD COLUMN timeseries_fields bytea;
