package dev.shardstore.router.api;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Resource-style endpoints over the same command registry (docs/architecture.md "The client API: REST and the wire protocol"). Each builds the MongoDB
 * command and answers with the command's reply, so replies and errors are those of the command
 * endpoint.
 *
 * <p>A path {@code id} is read as an Extended JSON value when it is one ({@code 42}, {@code "abc"},
 * {@code {"$oid": "..."}}); otherwise 24 hex digits mean an ObjectId, and anything else a string.
 */
@RestController
@RequestMapping(path = "/v1/databases/{db}/collections/{collection}/documents", produces = MediaType.APPLICATION_JSON_VALUE)
public class DocumentsController {
    private static final String JSON = MediaType.APPLICATION_JSON_VALUE;

    private final CommandController commands;

    public DocumentsController(CommandController commands) {
        this.commands = commands;
    }

    @Operation(summary = "Insert one document (a JSON object) or many (a JSON array); runs the insert command, ordered")
    @PostMapping(consumes = JSON)
    public ResponseEntity<String> insert(@PathVariable("db") String db, @PathVariable("collection") String collection, @RequestBody String body,
            HttpServletRequest request) {
        BsonValue documents = wrapped("documents", body);
        BsonArray array = documents.isArray() ? documents.asArray() : new BsonArray(List.of(documents));
        return reply(request, db, new BsonDocument("insert", new BsonString(collection)).append("documents", array));
    }

    @Operation(summary = "Find documents; filter, sort and projection are Extended JSON objects; runs the find command")
    @GetMapping
    public ResponseEntity<String> find(@PathVariable("db") String db, @PathVariable("collection") String collection,
            @Parameter(description = "query filter, e.g. {\"country\":\"FR\"}") @RequestParam(name = "filter", required = false) @Nullable String filter,
            @RequestParam(name = "sort", required = false) @Nullable String sort,
            @RequestParam(name = "projection", required = false) @Nullable String projection,
            @RequestParam(name = "skip", required = false) @Nullable Integer skip,
            @RequestParam(name = "limit", required = false) @Nullable Integer limit,
            @RequestParam(name = "batchSize", required = false) @Nullable Integer batchSize, HttpServletRequest request) {
        BsonDocument find = new BsonDocument("find", new BsonString(collection));
        putDocument(find, "filter", filter);
        putDocument(find, "sort", sort);
        putDocument(find, "projection", projection);
        putInt(find, "skip", skip);
        putInt(find, "limit", limit);
        putInt(find, "batchSize", batchSize);
        return reply(request, db, find);
    }

    @Operation(summary = "Get one document by _id; 404 when there is none")
    @GetMapping("/{id}")
    public ResponseEntity<String> get(@PathVariable("db") String db, @PathVariable("collection") String collection, @PathVariable("id") String id,
            HttpServletRequest request) {
        BsonDocument find = new BsonDocument("find", new BsonString(collection)).append("filter", byId(id))
                .append("limit", new BsonInt32(1)).append("singleBatch", BsonBoolean.TRUE);
        BsonArray batch = commands.run(request, db, find).getDocument("cursor").getArray("firstBatch");
        if (batch.isEmpty()) {
            throw notFound(db, collection, id);
        }
        return ResponseEntity.ok(ExtendedJson.toJson(batch.get(0).asDocument()));
    }

    @Operation(summary = "Replace the document with this _id, or insert it (upsert); runs the update command")
    @PutMapping(path = "/{id}", consumes = JSON)
    public ResponseEntity<String> replace(@PathVariable("db") String db, @PathVariable("collection") String collection,
            @PathVariable("id") String id, @RequestBody String body, HttpServletRequest request) {
        return reply(request, db, updateById(collection, id, ExtendedJson.parse(body), true));
    }

    @Operation(summary = "Apply update operators (e.g. {\"$set\": {...}}) to the document with this _id; 404 when there is none")
    @PatchMapping(path = "/{id}", consumes = JSON)
    public ResponseEntity<String> update(@PathVariable("db") String db, @PathVariable("collection") String collection,
            @PathVariable("id") String id, @RequestBody String body, HttpServletRequest request) {
        BsonDocument reply = commands.run(request, db, updateById(collection, id, ExtendedJson.parse(body), false));
        return found(reply, db, collection, id);
    }

    @Operation(summary = "Delete the document with this _id; 404 when there is none")
    @DeleteMapping("/{id}")
    public ResponseEntity<String> delete(@PathVariable("db") String db, @PathVariable("collection") String collection, @PathVariable("id") String id,
            HttpServletRequest request) {
        BsonDocument delete = new BsonDocument("delete", new BsonString(collection)).append("deletes", new BsonArray(List.of(
                new BsonDocument("q", byId(id)).append("limit", new BsonInt32(1)))));
        return found(commands.run(request, db, delete), db, collection, id);
    }

    private ResponseEntity<String> reply(HttpServletRequest request, String db, BsonDocument command) {
        return ResponseEntity.ok(ExtendedJson.toJson(commands.run(request, db, command)));
    }

    private ResponseEntity<String> found(BsonDocument reply, String db, String collection, String id) {
        if (reply.getNumber("n").intValue() == 0 && !reply.containsKey("writeErrors")) {
            throw notFound(db, collection, id);
        }
        return ResponseEntity.ok(ExtendedJson.toJson(reply));
    }

    private static BsonDocument updateById(String collection, String id, BsonDocument update, boolean upsert) {
        return new BsonDocument("update", new BsonString(collection)).append("updates", new BsonArray(List.of(
                new BsonDocument("q", byId(id)).append("u", update).append("upsert", BsonBoolean.valueOf(upsert)))));
    }

    static BsonDocument byId(String id) {
        return new BsonDocument("_id", parseId(id));
    }

    /** The Extended JSON value {@code json}, parsed as the one field {@code field} of a document (ExtendedJson parses documents). */
    private static BsonValue wrapped(String field, String json) {
        BsonDocument wrapped = ExtendedJson.parse("{\"" + field + "\": " + json + "}");
        return Objects.requireNonNull(wrapped.get(field), field); // the wrapper's own field, whatever json holds
    }

    static BsonValue parseId(String id) {
        try {
            return wrapped("v", id);
        } catch (CommandException notJson) {
            return ObjectId.isValid(id) ? new BsonObjectId(new ObjectId(id)) : new BsonString(id);
        }
    }

    private static CommandException notFound(String db, String collection, String id) {
        return new CommandException(ErrorCode.NoSuchKey, "no document with _id " + id + " in " + db + "." + collection);
    }

    private static void putDocument(BsonDocument command, String field, @Nullable String json) {
        if (json != null && !json.isBlank()) {
            try {
                command.put(field, ExtendedJson.parse(json));
            } catch (CommandException e) {
                throw new CommandException(e.code(), "query parameter '" + field + "': " + e.getMessage());
            }
        }
    }

    private static void putInt(BsonDocument command, String field, @Nullable Integer value) {
        if (value != null) {
            command.put(field, new BsonInt32(value));
        }
    }
}
