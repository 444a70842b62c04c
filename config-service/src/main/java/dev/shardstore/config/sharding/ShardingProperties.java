package dev.shardstore.config.sharding;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code shardstore.sharding.*}.
 *
 * @param maxChunkSize     the chunk size the primary aims for when it chooses the split keys of a non-empty collection
 *                         at shardCollection, twice the size moveRange without {@code max} cuts its range at, and the size
 *                         above which a donor refuses to move a chunk without {@code forceJumbo} (MongoDB's default chunk
 *                         size, 128 MB, until config.settings exists)
 * @param migrationTimeout how long {@code _configsvrMoveRange} waits for the donor's {@code _shardsvrMoveRange}, which
 *                         answers only when the migration is over (its clone, catch-up, commit and, with
 *                         {@code _waitForDelete}, its range deletion)
 */
@ConfigurationProperties("shardstore.sharding")
public record ShardingProperties(@DefaultValue("128MB") DataSize maxChunkSize, @DefaultValue("1h") Duration migrationTimeout) {}
