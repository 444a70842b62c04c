package dev.shardstore.transport.http;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.http.InternalApi;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.bson.BsonDocument;
import org.bson.BsonSerializationException;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;

/**
 * Reads and writes {@link BsonDocument} bodies as {@code application/bson} (binary BSON, the internal
 * format) or as Extended JSON ({@code application/json}, {@code application/problem+json}; relaxed on
 * output). BSON bodies are decoded one level deep ({@link BsonBytes#decodeShallow}), so a document
 * that is only stored or passed on is never decoded and re-encoded. Malformed JSON surfaces as the {@code FailedToParse} {@link
 * dev.shardstore.contracts.error.CommandException} naming the position. Both paths refuse nesting deeper than
 * {@link BsonLimits#MAX_DEPTH} with {@code Overflow} (15) before anything recursive reads the body (the BSON
 * bytes are walked iteratively first), so a later full decode of a nested value cannot overflow the stack.
 */
public final class BsonDocumentHttpMessageConverter extends AbstractHttpMessageConverter<BsonDocument> {
    public static final MediaType APPLICATION_BSON = MediaType.parseMediaType(InternalApi.MEDIA_TYPE_BSON);

    public BsonDocumentHttpMessageConverter() {
        super(APPLICATION_BSON, MediaType.APPLICATION_JSON, MediaType.APPLICATION_PROBLEM_JSON);
    }

    @Override
    protected boolean supports(Class<?> clazz) {
        return BsonDocument.class.isAssignableFrom(clazz);
    }

    @Override
    protected BsonDocument readInternal(Class<? extends BsonDocument> clazz, HttpInputMessage input) throws IOException {
        byte[] body = input.getBody().readAllBytes();
        MediaType type = input.getHeaders().getContentType();
        if (type != null && type.isCompatibleWith(APPLICATION_BSON)) {
            try {
                BsonLimits.checkDepth(ByteBuffer.wrap(body), BsonLimits.MAX_DEPTH, "BSON body");
                return BsonBytes.decodeShallow(body);
            } catch (BsonSerializationException e) {
                throw new HttpMessageNotReadableException("malformed BSON body: " + e.getMessage(), e, input);
            }
        }
        return ExtendedJson.parse(new String(body, StandardCharsets.UTF_8));
    }

    @Override
    protected void writeInternal(BsonDocument doc, HttpOutputMessage output) throws IOException {
        MediaType type = output.getHeaders().getContentType();
        byte[] bytes = type != null && type.isCompatibleWith(APPLICATION_BSON)
                ? BsonBytes.encode(doc)
                : ExtendedJson.toJson(doc).getBytes(StandardCharsets.UTF_8);
        output.getBody().write(bytes);
    }
}
