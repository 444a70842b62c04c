package dev.shardstore.contracts.bson;

import java.nio.ByteBuffer;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Binary BSON encoding of whole documents: the storage format of shard documents and the body
 * format ({@code application/bson}) of every service-to-service request.
 */
public final class BsonBytes {
    /** MongoDB's maximum user document size: 16 MiB. */
    public static final int MAX_DOCUMENT_SIZE = 16 * 1024 * 1024;

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private BsonBytes() {}

    public static byte[] encode(BsonDocument doc) {
        BasicOutputBuffer out = new BasicOutputBuffer(256);
        try (BsonBinaryWriter writer = new BsonBinaryWriter(out)) {
            CODEC.encode(writer, doc, EncoderContext.builder().build());
        }
        return out.toByteArray();
    }

    /**
     * Decodes one document.
     *
     * @throws org.bson.BsonSerializationException if the bytes are not one well-formed document
     */
    public static BsonDocument decode(byte[] bytes) {
        try (BsonBinaryReader reader = new BsonBinaryReader(ByteBuffer.wrap(bytes))) {
            return CODEC.decode(reader, DecoderContext.builder().build());
        }
    }
}
