package dev.shardstore.config.catalog;

import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/** {@code config.shards}. */
public interface ShardRepository extends JpaRepository<ShardEntity, String> {
    Optional<ShardEntity> findByHost(String host);
}
