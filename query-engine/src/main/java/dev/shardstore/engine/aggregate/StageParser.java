package dev.shardstore.engine.aggregate;

import org.bson.BsonValue;

/** Parses the argument of one stage ({@code {$stage: <argument>}}); {@code pipelines} parses nested pipelines. */
@FunctionalInterface
interface StageParser {
    Stage parse(BsonValue argument, PipelineParser pipelines);
}
