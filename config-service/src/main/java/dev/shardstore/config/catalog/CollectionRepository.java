package dev.shardstore.config.catalog;

import jakarta.persistence.LockModeType;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Lock;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/** {@code config.collections}. */
public interface CollectionRepository extends JpaRepository<CollectionEntity, String> {
    /**
     * The row, locked ({@code SELECT … FOR UPDATE}) until the surrounding transaction ends: every commit on a
     * collection's chunks holds it, so commits of one collection are serialized.
     */
    @Lock(LockModeType.PESSIMISTIC_WRITE)
    @Query("select c from CollectionEntity c where c.namespace = :namespace")
    Optional<CollectionEntity> findForUpdate(@Param("namespace") String namespace);
}
