package dev.shardstore.router.sharding;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/**
 * A seeded generator of hostile requests to the router's client API, built by mutating valid seed commands: wrong
 * types for any field, missing and extra fields, huge, negative and NaN numbers, empty strings, {@code $}-prefixed,
 * dotted, empty and very long field names, very long dotted paths, deep nesting (up to several thousand levels, as
 * JSON text and as field values), long strings, big arrays, every Extended JSON type, and truncated or garbled JSON.
 * The same seed gives the same requests, whatever the router answers.
 *
 * <p>Deeply nested values are spliced into the JSON text in place of a marker string: building them as documents
 * and serialising them would overflow the test's own (recursive) JSON writer.
 */
final class HostileRequests {
    /** One request: method, path (with query) and body ({@code null}: none). */
    record Request(String method, String path, String body) {
        String describe() {
            String shown = body == null ? "" : body.length() > 300 ? body.substring(0, 300) + "... (" + body.length() + " chars)" : body;
            String where = path.length() > 200 ? path.substring(0, 200) + "..." : path;
            return method + " " + where + " " + shown;
        }
    }

    /** The databases commands are sent to: a normal one, {@code admin} and {@code config}. */
    static final List<String> DATABASES = List.of("fuzz", "admin", "config");
    private static final String MARKER = "\u0001deep:";

    private final Random random;
    private final List<String> commandNames;
    private final Map<String, List<String>> seeds;
    private final List<String> deepValues = new ArrayList<>();

    /**
     * @param commandNames every command name the router's registry knows; each is sent
     * @param seeds        valid seed commands (Extended JSON) by command name; a name without seeds gets
     *                     {@code {<name>: "c"}} and {@code {<name>: 1}}
     */
    HostileRequests(long seed, List<String> commandNames, Map<String, List<String>> seeds) {
        this.random = new Random(seed);
        this.commandNames = List.copyOf(commandNames);
        this.seeds = Map.copyOf(seeds);
    }

    /** The next request: nine in ten to the command endpoint, the rest to the resource-style endpoints. */
    Request next() {
        deepValues.clear();
        if (random.nextInt(10) == 0) {
            return resourceRequest();
        }
        String name = pick(commandNames);
        String db = random.nextInt(20) == 0 ? pick(List.of("bad$db", "a.b", "x".repeat(70), "%20", "admin%00")) : pick(DATABASES);
        return new Request("POST", "/v1/databases/" + db + "/command", mutatedText(seedOf(name)));
    }

    private BsonDocument seedOf(String name) {
        List<String> known = seeds.getOrDefault(name, List.of("{\"" + name + "\": \"c\"}", "{\"" + name + "\": 1}"));
        return ExtendedJson.parse(pick(known));
    }

    /** A seed command after one to four structural mutations, as text, maybe garbled too. */
    private String mutatedText(BsonDocument command) {
        int mutations = 1 + random.nextInt(4);
        for (int i = 0; i < mutations; i++) {
            mutate(command);
        }
        String text = splice(ExtendedJson.toJson(command));
        return random.nextInt(5) == 0 ? garble(text) : text;
    }

    private Request resourceRequest() {
        String base = "/v1/databases/" + pick(DATABASES) + "/collections/" + pick(List.of("c", "u", "$bad", "a.b", "")) ;
        String id = URLEncoder.encode(pick(List.of("1", "\"x\"", "{\"$oid\": \"zz\"}", "{\"a\": {\"$gt\": 1}}", "[1, 2]", "0123456789abcdef01234567",
                "{\"$numberLong\": \"99999999999999999999\"}", "{", "null")), StandardCharsets.UTF_8);
        return switch (random.nextInt(6)) {
            case 0 -> new Request("POST", base + "/documents", mutatedText(document()));
            case 1 -> new Request("GET", base + "/documents?" + query(), null);
            case 2 -> new Request("GET", base + "/documents/" + id, null);
            case 3 -> new Request("PUT", base + "/documents/" + id, mutatedText(document()));
            case 4 -> new Request("PATCH", base + "/documents/" + id, mutatedText(new BsonDocument("$set", document())));
            default -> {
                BsonDocument holder = new BsonDocument("p", ExtendedJson.parse("{\"p\": [{\"$match\": {\"x\": 1}}, {\"$group\": {\"_id\": \"$g\", \"n\": {\"$sum\": 1}}}]}").get("p"));
                String pipeline = mutatedText(holder);
                int start = pipeline.indexOf(':');
                yield new Request("POST", base + "/aggregate?batchSize=" + pick(List.of("1", "-1", "x", "99999999999")),
                        start > 0 && pipeline.endsWith("}") ? pipeline.substring(start + 1, pipeline.length() - 1) : pipeline);
            }
        };
    }

    /** A query string for the find endpoint; kept under Tomcat's request-line limit (8 KiB). */
    private String query() {
        List<String> parts = new ArrayList<>();
        for (String name : List.of("filter", "sort", "projection", "skip", "limit", "batchSize")) {
            if (random.nextBoolean()) {
                String value = switch (name) {
                    case "filter", "sort", "projection" -> {
                        BsonDocument holder = new BsonDocument("v", value(2));
                        String text = splice(ExtendedJson.toJson(random.nextBoolean() ? document() : holder));
                        yield text.length() > 2000 ? text.substring(0, 2000) : text;
                    }
                    default -> pick(List.of("0", "-5", "1e3", "NaN", "99999999999", "", "x"));
                };
                parts.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
            }
        }
        return String.join("&", parts);
    }

    private BsonDocument document() {
        BsonDocument doc = new BsonDocument("x", new BsonInt32(random.nextInt(200) - 100)).append("g", new BsonString("a"));
        if (random.nextBoolean()) {
            doc.put("_id", value(1));
        }
        return doc;
    }

    // --- structural mutations -------------------------------------------------------------------------------------

    /** A place in a document tree: a document's field or an array's element. */
    private record Slot(BsonValue container, String key, int index) {
        BsonValue get() {
            return container.isDocument() ? container.asDocument().get(key) : container.asArray().get(index);
        }

        void set(BsonValue value) {
            if (container.isDocument()) {
                container.asDocument().put(key, value);
            } else {
                container.asArray().set(index, value);
            }
        }

        void remove() {
            if (container.isDocument()) {
                container.asDocument().remove(key);
            } else {
                container.asArray().remove(index);
            }
        }
    }

    private void mutate(BsonDocument command) {
        List<Slot> slots = new ArrayList<>();
        collect(command, slots, 0);
        if (slots.isEmpty()) {
            command.put(fieldName(), value(2));
            return;
        }
        Slot slot = pick(slots);
        BsonValue container = slot.container();
        switch (random.nextInt(10)) {
            case 0, 1, 2 -> slot.set(value(3));
            case 3 -> slot.remove();
            case 4 -> {
                if (container.isDocument()) {
                    container.asDocument().put(fieldName(), value(2));
                } else {
                    container.asArray().add(value(2));
                }
            }
            case 5 -> slot.set(number());
            case 6 -> slot.set(deep());
            case 7 -> {
                if (container.isDocument() && slot.key() != null) {
                    BsonValue moved = container.asDocument().remove(slot.key());
                    container.asDocument().put(fieldName(), moved);
                } else {
                    slot.set(value(1));
                }
            }
            case 8 -> slot.set(new BsonDocument(fieldName(), slot.get()));
            default -> slot.set(new BsonArray(Collections.nCopies(1 + random.nextInt(3), slot.get())));
        }
    }

    private static void collect(BsonValue value, List<Slot> slots, int depth) {
        if (depth > 8) {
            return;
        }
        if (value.isDocument()) {
            for (String key : value.asDocument().keySet()) {
                Slot slot = new Slot(value, key, -1);
                slots.add(slot);
                collect(slot.get(), slots, depth + 1);
            }
        } else if (value.isArray() && value.asArray().size() <= 20) {
            for (int i = 0; i < value.asArray().size(); i++) {
                Slot slot = new Slot(value, null, i);
                slots.add(slot);
                collect(slot.get(), slots, depth + 1);
            }
        }
    }

    // --- values ------------------------------------------------------------------------------------------------------

    private String fieldName() {
        return switch (random.nextInt(12)) {
            case 0 -> "";
            case 1 -> "$" + pick(List.of("where", "and", "set", "gt", "foo", "", "$", "expr", "natural", "numberLong"));
            case 2 -> "a.b.c";
            case 3 -> ".";
            case 4 -> String.join(".", Collections.nCopies(pick(List.of(100, 101, 200, 201, 5000)), "a"));
            case 5 -> "x".repeat(pick(List.of(1000, 70_000)));
            case 6 -> "a\u0000b";
            case 7 -> "_id";
            case 8 -> pick(List.of("filter", "query", "q", "u", "sort", "limit", "skip", "batchSize", "documents", "updates", "deletes",
                    "pipeline", "cursor", "key", "projection", "hint", "ordered", "multi", "upsert", "new", "remove", "update", "fields",
                    "shardVersion", "databaseVersion", "lsid", "txnNumber", "readConcern", "writeConcern", "maxTimeMS", "comment",
                    "collation", "let", "arrayFilters", "bypassDocumentValidation", "explain", "allowDiskUse", "nameOnly", "verbosity",
                    "middle", "bounds", "find", "unique", "numInitialChunks", "indexes", "index", "collection", "cursors", "singleBatch"));
            case 9 -> "0";
            default -> "f" + random.nextInt(5);
        };
    }

    private BsonValue number() {
        return pick(List.<Supplier<BsonValue>>of(
                () -> new BsonInt32(Integer.MIN_VALUE), () -> new BsonInt32(Integer.MAX_VALUE), () -> new BsonInt32(-1),
                () -> new BsonInt32(0), () -> new BsonInt64(Long.MIN_VALUE), () -> new BsonInt64(Long.MAX_VALUE),
                () -> new BsonDouble(Double.NaN), () -> new BsonDouble(Double.POSITIVE_INFINITY), () -> new BsonDouble(Double.NEGATIVE_INFINITY),
                () -> new BsonDouble(-0.0), () -> new BsonDouble(1e308), () -> new BsonDouble(4.9e-324), () -> new BsonDouble(-1.5),
                () -> new BsonDouble(2147483648.0), () -> new BsonDecimal128(Decimal128.NaN), () -> new BsonDecimal128(Decimal128.NEGATIVE_INFINITY),
                () -> new BsonDecimal128(Decimal128.parse("1E+6144")), () -> new BsonDecimal128(Decimal128.parse("-1E-6143")),
                () -> new BsonDecimal128(Decimal128.NEGATIVE_ZERO))).get();
    }

    /** A random value of any BSON type; {@code budget} bounds how deep containers go. */
    private BsonValue value(int budget) {
        int kind = random.nextInt(budget > 0 ? 26 : 21);
        return switch (kind) {
            case 0, 1 -> number();
            case 2 -> new BsonString("");
            case 3 -> new BsonString(pick(List.of("$x", "$", "$$ROOT", "$$NOW", "a.b", "$a.b", "$" + "a.".repeat(3000) + "a", "hashed", "2dsphere",
                    "text", "*", "\u0000", "\uFFFF", "shard1", "fuzz.c", "config.chunks", "admin", "fuzz.", ".c", "http://127.0.0.1:9")));
            case 4 -> new BsonString("s".repeat(random.nextInt(20) == 0 ? 1_000_000 : pick(List.of(1, 1000, 100_000))));
            case 5 -> BsonBoolean.valueOf(random.nextBoolean());
            case 6 -> BsonNull.VALUE;
            case 7 -> new BsonUndefined();
            case 8 -> new BsonMinKey();
            case 9 -> new BsonMaxKey();
            case 10 -> new BsonObjectId(new ObjectId());
            case 11 -> new BsonDateTime(pick(List.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L)));
            case 12 -> new BsonTimestamp(random.nextInt(), random.nextInt());
            case 13 -> new BsonRegularExpression(pick(List.of("(", "[", "a{99999}", ".*", "(a+)+$", "\\")), pick(List.of("", "imxs", "z", "g")));
            case 14 -> new BsonBinary((byte) pick(List.of(0, 3, 4, 5, 0x80, 0xff)).intValue(), new byte[random.nextInt(20)]);
            case 15 -> new BsonJavaScript("while(true){}");
            case 16 -> new BsonJavaScriptWithScope("f()", new BsonDocument("a", new BsonInt32(1)));
            case 17 -> new BsonSymbol("sym");
            case 18 -> new BsonDbPointer("fuzz.c", new ObjectId());
            case 19 -> new BsonInt32(random.nextInt(20) - 5);
            case 20 -> new BsonString(pick(List.of("c", "u", "x", "g", "_id", "c.d", "system.views", "$cmd")));
            case 21, 22 -> {
                BsonDocument doc = new BsonDocument();
                int fields = random.nextInt(4);
                for (int i = 0; i < fields; i++) {
                    doc.put(fieldName(), value(budget - 1));
                }
                yield doc;
            }
            case 23 -> {
                BsonArray array = new BsonArray();
                int size = pick(List.of(0, 1, 3, 10_000));
                // a big array repeats one small scalar, so the body stays a few hundred KiB
                BsonValue element = size > 100 ? number() : null;
                for (int i = 0; i < size; i++) {
                    array.add(element != null ? element : value(budget - 1));
                }
                yield array;
            }
            case 24 -> new BsonDocument(pick(List.of("$gt", "$in", "$elemMatch", "$not", "$regex", "$exists", "$type", "$size", "$all",
                    "$mod", "$expr", "$and", "$or", "$nor", "$where", "$text", "$set", "$inc", "$push", "$each", "$slice", "$meta",
                    "$numberLong", "$oid", "$date", "$binary", "$regularExpression", "$timestamp", "$minKey", "$sum", "$group")), value(budget - 1));
            default -> deep();
        };
    }

    /** A marker string that {@link #splice} replaces with nesting of a depth around or far past the limit. */
    private BsonValue deep() {
        int depth = pick(List.of(99, 100, 101, 150, 198, 199, 200, 201, 1000, 3000, 5000));
        String open;
        String close;
        switch (random.nextInt(6)) {
            case 0 -> { open = "{\"a\": "; close = "}"; }
            case 1 -> { open = "["; close = "]"; }
            case 2 -> { open = "{\"$and\": ["; close = "]}"; }
            case 3 -> { open = "{\"$not\": "; close = "}"; }
            case 4 -> { open = "{\"$elemMatch\": {\"a\": "; close = "}}"; }
            default -> { open = "{\"$add\": [1, "; close = "]}"; }
        }
        String inner = pick(List.of("1", "{}", "[]", "\"$a\"", "{\"$gt\": 1}"));
        deepValues.add(open.repeat(depth) + inner + close.repeat(depth));
        return new BsonString(MARKER + (deepValues.size() - 1));
    }

    /** Replaces each deep-value marker in the JSON text with its nesting. */
    private String splice(String json) {
        String escaped = MARKER.replace("\u0001", "\\u0001");
        for (int i = 0; i < deepValues.size(); i++) {
            json = json.replace("\"" + escaped + i + "\"", deepValues.get(i));
        }
        if (json.contains(escaped)) {
            throw new IllegalStateException("a deep-value marker was not replaced: the JSON writer escapes differently");
        }
        return json;
    }

    /** Breaks the JSON text: truncated, a character replaced, inserted or deleted, a slice repeated, or unbalanced. */
    private String garble(String text) {
        if (text.isEmpty()) {
            return "{";
        }
        int at = random.nextInt(text.length());
        String noise = pick(List.of("{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "\u0000", "\uD800", "NaN", "Infinity", "-", "1e99999",
                "{\"$numberLong\": \"x\"}", "{\"$date\": {\"$numberLong\": \"99999999999999999999\"}}", "{\"$oid\": \"zz\"}",
                "{\"$numberDecimal\": \"1e999999\"}", "{\"$binary\": {\"base64\": \"!!\", \"subType\": \"zz\"}}",
                "{\"$timestamp\": {\"t\": -1, \"i\": -1}}", "{\"$regularExpression\": {\"pattern\": \"(\", \"options\": \"q\"}}",
                "new Date(", "ObjectId(", "/a{/", "'", "undefined", "\n"));
        return switch (random.nextInt(6)) {
            case 0 -> text.substring(0, at);
            case 1 -> text.substring(0, at) + noise + text.substring(Math.min(text.length(), at + 1));
            case 2 -> text.substring(0, at) + noise + text.substring(at);
            case 3 -> text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + random.nextInt(10)));
            case 4 -> text.substring(0, at) + text.substring(at, Math.min(text.length(), at + 50)).repeat(1 + random.nextInt(50)) + text.substring(at);
            default -> "[".repeat(pick(List.of(1, 201, 10_000))) + text;
        };
    }

    private <T> T pick(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }
}
