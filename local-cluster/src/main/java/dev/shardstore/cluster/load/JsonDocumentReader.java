package dev.shardstore.cluster.load;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Streams documents out of JSON: either one array of objects ({@code [{...}, {...}]}) or objects one
 * after another (JSON Lines). Each object is copied token by token, numbers exactly as written, so
 * values such as {@code {"$oid": "..."}} reach the router as Extended JSON.
 */
final class JsonDocumentReader implements DocumentReader {
    private static final JsonFactory FACTORY = new JsonFactory();

    private enum Shape { UNKNOWN, ARRAY, SEQUENCE, DONE }

    private final InputFile file;
    private final JsonParser parser;
    private Shape shape = Shape.UNKNOWN;
    private long documents;

    JsonDocumentReader(InputFile file) {
        this.file = file;
        this.parser = FACTORY.createParser(ObjectReadContext.empty(), file.content());
    }

    @Override
    public boolean writeNext(JsonGenerator out) {
        if (shape == Shape.DONE) {
            return false;
        }
        try {
            JsonToken token = parser.nextToken();
            if (shape == Shape.UNKNOWN) {
                shape = token == JsonToken.START_ARRAY ? Shape.ARRAY : Shape.SEQUENCE;
                if (shape == Shape.ARRAY) {
                    token = parser.nextToken();
                }
            }
            if (shape == Shape.ARRAY && token == JsonToken.END_ARRAY) {
                if (parser.nextToken() != null) {
                    throw new LoadException(where() + ": unexpected content after the closing ']' of the array");
                }
                token = null;
            }
            if (token == null) {
                shape = Shape.DONE;
                return false;
            }
            if (token != JsonToken.START_OBJECT) {
                throw new LoadException(where() + ": document " + (documents + 1) + " is " + token + ", not a JSON object");
            }
            out.copyCurrentStructureExact(parser);
            documents++;
            return true;
        } catch (JacksonException e) {
            throw new LoadException(where() + ": malformed JSON: " + e.getOriginalMessage(), e);
        }
    }

    private String where() {
        var location = parser.currentLocation();
        return file.path() + " line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
