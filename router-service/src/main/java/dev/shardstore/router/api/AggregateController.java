package dev.shardstore.router.api;

import dev.shardstore.contracts.bson.ExtendedJson;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.servlet.http.HttpServletRequest;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The resource-style aggregate endpoint (docs/architecture.md "The client API: REST and the wire protocol"): {@code POST
 * /v1/databases/{db}/collections/{collection}/aggregate} with the pipeline (a JSON array of stages) as the
 * body runs {@code {aggregate: <collection>, pipeline: <body>, cursor: {batchSize?}}} and answers with the
 * command's cursor reply; page on with getMore through the command endpoint. Errors are the command's.
 */
@RestController
public class AggregateController {
    private final CommandController commands;

    public AggregateController(CommandController commands) {
        this.commands = commands;
    }

    @Operation(summary = "Run an aggregation pipeline (a JSON array of stages); runs the aggregate command")
    @PostMapping(path = "/v1/databases/{db}/collections/{collection}/aggregate", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<String> aggregate(@PathVariable("db") String db, @PathVariable("collection") String collection,
            @RequestBody String pipeline, @RequestParam(name = "batchSize", required = false) @Nullable Integer batchSize,
            HttpServletRequest request) {
        BsonDocument cursor = new BsonDocument();
        if (batchSize != null) {
            cursor.put("batchSize", new BsonInt32(batchSize));
        }
        BsonDocument command = new BsonDocument("aggregate", new BsonString(collection))
                .append("pipeline", ExtendedJson.parse("{\"pipeline\": " + pipeline + "}").get("pipeline"))
                .append("cursor", cursor);
        return ResponseEntity.ok(ExtendedJson.toJson(commands.run(request, db, command)));
    }
}
