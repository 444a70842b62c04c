package dev.shardstore.engine.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/** Table-test helper: runs a pipeline given as Extended JSON over documents given as a JSON array. */
final class Run {
    private Run() {}

    /** The output of {@code pipeline} over {@code documents}; {@code others} are the collections $lookup sees. */
    static List<BsonDocument> run(String pipeline, String documents, Map<String, String> others) {
        return run(pipeline, documents, others, CommandVariables.withoutLet());
    }

    /** As {@link #run(String, String, Map)} with the command's {@code variables} (its {@code let} and collation). */
    static List<BsonDocument> run(String pipeline, String documents, Map<String, String> others, CommandVariables variables) {
        CollectionSource source = (collection, filter) -> others.containsKey(collection)
                ? docs(others.get(collection)).stream().filter(filter::matches).toList() : List.of();
        Pipeline parsed = Pipeline.parse(ExtendedJson.parse("{p: " + pipeline + "}").getArray("p"), source, variables);
        return parsed.run(docs(documents).stream().filter(parsed.scanFilter()::matches).toList());
    }

    static List<BsonDocument> docs(String json) {
        return ExtendedJson.parse("{d: " + json + "}").getArray("d").stream().map(BsonValue::asDocument).toList();
    }

    /** Asserts the exact output: document order, field order and types (compared as canonical Extended JSON). */
    static void check(String pipeline, String documents, String expected) {
        assertThat(json(run(pipeline, documents, Map.of()))).as(pipeline).containsExactlyElementsOf(json(docs(expected)));
    }

    static List<String> json(List<BsonDocument> documents) {
        return documents.stream().map(d -> d.toJson(JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build())).toList();
    }

    static void fails(String pipeline, String documents, int code, String message) {
        assertThatThrownBy(() -> run(pipeline, documents, Map.of())).isInstanceOf(CommandException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }
}
