package dev.shardstore.config.sharding;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code shardstore.sharding.*}.
 *
 * @param maxChunkSize the chunk size the primary aims for when it chooses the split keys of a non-empty collection
 *                     at shardCollection (MongoDB's default chunk size, 128 MB, until config.settings exists)
 */
@ConfigurationProperties("shardstore.sharding")
public record ShardingProperties(@DefaultValue("128MB") DataSize maxChunkSize) {}
