package dev.shardstore.router.api;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.support.command.CommandRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.bson.BsonDocument;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The client command endpoint (DESIGN.md §6): {@code POST /v1/databases/{db}/command} with a MongoDB
 * command document in Extended JSON; the reply is MongoDB's reply document in relaxed Extended JSON,
 * or a problem+json error. Bodies are parsed here (not by a message converter) so that a malformed
 * body is a FailedToParse 400 that names the line and column.
 */
@RestController
public class CommandController {
    private final CommandRegistry registry;
    private final MeterRegistry meters;

    public CommandController(CommandRegistry registry, MeterRegistry meters) {
        this.registry = registry;
        this.meters = meters;
    }

    @Operation(summary = "Run a database command", description = "Any supported MongoDB command document, e.g. "
            + "{\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}, \"limit\": 5}; admin commands such as addShard run on db 'admin'.")
    @ApiResponse(responseCode = "200", description = "The command's reply, with ok: 1",
            content = @Content(mediaType = "application/json", schema = @Schema(type = "object")))
    @ApiResponse(responseCode = "4XX", description = "Bad input: RFC 9457 problem with MongoDB's code and codeName",
            content = @Content(mediaType = "application/problem+json", schema = @Schema(type = "object")))
    @PostMapping(path = "/v1/databases/{db}/command", consumes = MediaType.APPLICATION_JSON_VALUE, produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<String> command(@PathVariable("db") String db,
            @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(schema = @Schema(type = "object"),
                    examples = @ExampleObject("{\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}, \"limit\": 5}")))
            @RequestBody String body) {
        BsonDocument command = ExtendedJson.parse(body);
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(ExtendedJson.toJson(run(db, command)));
    }

    /** Runs a command through the registry, timing it per command name and outcome. */
    BsonDocument run(String db, BsonDocument command) {
        String name = command.isEmpty() ? "(empty)" : command.getFirstKey();
        Timer.Sample sample = Timer.start(meters);
        String outcome = "error";
        try {
            BsonDocument reply = registry.run(db, command);
            outcome = "ok";
            return reply;
        } finally {
            sample.stop(meters.timer("shardstore.router.command", "command", registry.knows(name) ? name : "unknown", "outcome", outcome));
        }
    }
}
