package dev.shardstore.router.api;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.security.RestAuthentication;
import jakarta.servlet.http.HttpServletRequest;
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
 * The client command endpoint (docs/architecture.md "The client API: REST and the wire protocol"): {@code POST /v1/databases/{db}/command} with a MongoDB
 * command document in Extended JSON; the reply is MongoDB's reply document in relaxed Extended JSON,
 * or a problem+json error. Bodies are parsed here (not by a message converter) so that a malformed
 * body is a FailedToParse 400 that names the line and column.
 */
@RestController
public class CommandController {
    private final ClientCommands commands;

    public CommandController(ClientCommands commands) {
        this.commands = commands;
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
            @RequestBody String body, HttpServletRequest request) {
        BsonDocument command = ExtendedJson.parse(body);
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(ExtendedJson.toJson(run(request, db, command)));
    }

    /**
     * Runs a command through the registry as the request's principal ({@link RestAuthentication}), timed with
     * {@code transport=rest} ({@link ClientCommands}).
     */
    BsonDocument run(HttpServletRequest request, String db, BsonDocument command) {
        return commands.run(ClientCommands.Transport.REST, RestAuthentication.principal(request), RestAuthentication.remote(request), db, command);
    }
}
