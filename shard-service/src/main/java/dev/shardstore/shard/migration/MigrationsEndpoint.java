package dev.shardstore.shard.migration;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Actuator endpoint {@code /actuator/migrations} (docs/architecture.md "Observability"): this shard's chunk migrations.
 *
 * <p>Shape: {@code {active: [<MigrationProgress.describe() as relaxed Extended JSON>], coordinators: [{min, max, from, to,
 * migrationId, ns, decision}], rangeDeletions: [{migrationId, ns, min, max, side, pending, whenToClean, readyAt}]}}: the
 * migrations running now (with phase, documents and bytes cloned, changes transferred, elapsed time), the donations not
 * finished on both shards, and the orphaned ranges waiting for deletion.
 */
@Component
@Endpoint(id = "migrations")
public class MigrationsEndpoint {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final ActiveMigrationsRegistry registry;
    private final MigrationCoordinatorStore coordinators;
    private final RangeDeletionStore tasks;
    private final JsonMapper json;

    public MigrationsEndpoint(ActiveMigrationsRegistry registry, MigrationCoordinatorStore coordinators, RangeDeletionStore tasks,
            JsonMapper json) {
        this.registry = registry;
        this.coordinators = coordinators;
        this.tasks = tasks;
        this.json = json;
    }

    /** The current state, as plain maps for JSON. */
    @ReadOperation
    public Map<String, Object> migrations() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("active", registry.active().stream().map(p -> plain(p.describe())).toList());
        out.put("coordinators", coordinators.list().stream().map(doc -> plain(MigrationCoordinator.details(doc)
                .append("ns", new BsonString(doc.namespace().full()))
                .append("decision", doc.decision() == null ? BsonNull.VALUE : new BsonString(doc.decision().value())))).toList());
        out.put("rangeDeletions", tasks.list().stream().map(task -> plain(new BsonDocument("migrationId", new BsonString(task.id().toString()))
                .append("ns", new BsonString(task.namespace().full()))
                .append("min", task.range().min())
                .append("max", task.range().max())
                .append("side", new BsonString(task.side().name().toLowerCase(Locale.ROOT)))
                .append("pending", BsonBoolean.valueOf(task.pending()))
                .append("whenToClean", new BsonString(task.whenToClean().name().toLowerCase(Locale.ROOT)))
                .append("readyAt", task.readyAt() == null ? BsonNull.VALUE : new BsonString(task.readyAt().toString())))).toList());
        return out;
    }

    private Object plain(BsonDocument document) {
        return json.readValue(document.toJson(RELAXED), Map.class);
    }
}
