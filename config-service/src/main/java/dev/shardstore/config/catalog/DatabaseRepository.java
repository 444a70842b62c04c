package dev.shardstore.config.catalog;

import org.springframework.data.jpa.repository.JpaRepository;

/** {@code config.databases}. */
public interface DatabaseRepository extends JpaRepository<DatabaseEntity, String> {}
