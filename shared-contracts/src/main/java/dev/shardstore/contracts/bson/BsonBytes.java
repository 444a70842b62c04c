package dev.shardstore.contracts.bson;

import java.nio.ByteBuffer;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.RawBsonDocumentCodec;
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
    private static final RawBsonDocumentCodec RAW_CODEC = new RawBsonDocumentCodec();
    private static final BsonValueCodec VALUE_CODEC = new BsonValueCodec();

    private BsonBytes() {}

    /** The document's BSON bytes; a {@link RawBsonDocument}'s own bytes are copied, not re-encoded. */
    public static byte[] encode(BsonDocument doc) {
        if (doc instanceof RawBsonDocument raw) {
            ByteBuf buf = raw.getByteBuffer();
            byte[] bytes = new byte[buf.remaining()];
            buf.get(bytes);
            return bytes;
        }
        BasicOutputBuffer out = new BasicOutputBuffer(256);
        try (BsonBinaryWriter writer = new BsonBinaryWriter(out)) {
            CODEC.encode(writer, doc, EncoderContext.builder().build());
        }
        return out.toByteArray();
    }

    /**
     * The document in its encoded form: a {@link RawBsonDocument} is read lazily and written by
     * copying its bytes, so a document that is only passed on is encoded once.
     */
    public static RawBsonDocument toRaw(BsonDocument doc) {
        return doc instanceof RawBsonDocument raw ? raw : new RawBsonDocument(doc, CODEC);
    }

    /** Size in bytes of the document's BSON encoding. */
    public static int size(RawBsonDocument doc) {
        return doc.getByteBuffer().remaining();
    }

    /**
     * Decodes the top level of a document received from a peer; nested documents, including those
     * directly inside top-level arrays (a command's {@code documents}, {@code updates}), stay
     * {@link RawBsonDocument}s: immutable, parsed only when read, written back by copying their bytes.
     * One pass over the bytes, so indexing a top-level array is constant time.
     *
     * @throws org.bson.BsonSerializationException if the bytes are not one well-formed document
     */
    public static BsonDocument decodeShallow(byte[] bytes) {
        try (BsonBinaryReader reader = new BsonBinaryReader(ByteBuffer.wrap(bytes))) {
            BsonDocument doc = new BsonDocument();
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                String name = reader.readName();
                doc.put(name, reader.getCurrentBsonType() == BsonType.ARRAY ? readArray(reader) : readValue(reader));
            }
            reader.readEndDocument();
            return doc;
        }
    }

    private static BsonArray readArray(BsonBinaryReader reader) {
        BsonArray array = new BsonArray();
        reader.readStartArray();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            array.add(readValue(reader));
        }
        reader.readEndArray();
        return array;
    }

    private static BsonValue readValue(BsonBinaryReader reader) {
        return reader.getCurrentBsonType() == BsonType.DOCUMENT
                ? RAW_CODEC.decode(reader, DecoderContext.builder().build())
                : VALUE_CODEC.decode(reader, DecoderContext.builder().build());
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
