package dev.shardstore.contracts.bson;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import org.jspecify.annotations.Nullable;

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
    /** Where the value of a document's first element starts when that element is {@code _id}: size, type, "_id\0". */
    private static final int ID_VALUE = 4 + 1 + 4;

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

    /** Whether {@code doc}'s first field is {@code _id}, read from its bytes without a reader. */
    public static boolean startsWithId(RawBsonDocument doc) {
        ByteBuffer bytes = doc.getByteBuffer().asNIO();
        return startsWithId(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
    }

    /** Whether the document in {@code bson[offset, offset + length)} starts with an {@code _id} element. */
    private static boolean startsWithId(byte[] bson, int offset, int length) {
        return length > ID_VALUE && bson[offset + 4] != 0 && bson[offset + 5] == '_' && bson[offset + 6] == 'i'
                && bson[offset + 7] == 'd' && bson[offset + 8] == 0;
    }

    /**
     * The BSON of {@code {_id: <value>}} for a well-formed document whose first field is {@code _id}, as every stored
     * document's is, made by copying that element's bytes (an oplog entry's {@code documentKey} of an unsharded
     * collection, once per written document); null when the first field is not {@code _id} or its value is a code
     * with scope.
     */
    public static byte @Nullable [] idDocument(byte[] bson) {
        if (!startsWithId(bson, 0, bson.length)) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(bson).order(ByteOrder.LITTLE_ENDIAN);
        int type = bson[4];
        int end = switch (type) {
            case 0x03, 0x04 -> ID_VALUE + in.getInt(ID_VALUE);
            case 0x0F -> -1;
            default -> BsonValidation.valueEnd(in, type, ID_VALUE, bson.length - 1);
        };
        if (end < 0) {
            return null;
        }
        byte[] key = new byte[end + 1];
        ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).putInt(0, key.length);
        System.arraycopy(bson, 4, key, 4, end - 4);
        return key; // the last byte, the document's terminator, is already 0
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
            return readFields(reader, (name, r) -> r.getCurrentBsonType() == BsonType.ARRAY ? readArray(r) : readValue(r));
        }
    }

    /** How a document's field is read, given its name, the reader positioned at its value. */
    @FunctionalInterface
    private interface FieldReader {
        BsonValue read(String name, BsonBinaryReader reader);
    }

    /** The document at the reader, each field's value read by {@code fields}. */
    private static BsonDocument readFields(BsonBinaryReader reader, FieldReader fields) {
        BsonDocument doc = new BsonDocument();
        reader.readStartDocument();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = reader.readName();
            doc.put(name, fields.read(name, reader));
        }
        reader.readEndDocument();
        return doc;
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
                : decodeValue(reader);
    }

    /**
     * Decodes a command reply that is to be passed on rather than read (a routed point read's {@code find} reply, which
     * the router forwards to its client): like {@link #decode}, a mutable tree, except the documents of
     * {@code cursor.firstBatch} and {@code cursor.nextBatch}, which stay {@link RawBsonDocument}s — copied as bytes, read
     * only when read, and written back by copying their bytes, so a forwarded batch is neither built as a tree nor
     * re-encoded (the issue-10 profile had the router's BSON work on each reply at a fifth of its CPU). Those documents'
     * insides are checked when read, not here: they come from a peer's reply, not a client.
     *
     * @param bytes the reply document, from its position to its limit
     * @throws org.bson.BsonSerializationException if the bytes are not one well-formed document
     */
    public static BsonDocument decodeKeepingBatches(ByteBuffer bytes) {
        try (BsonBinaryReader reader = new BsonBinaryReader(bytes)) {
            return readFields(reader, (name, r) -> name.equals("cursor") && r.getCurrentBsonType() == BsonType.DOCUMENT
                    ? readFields(r, BsonBytes::cursorField) : decodeValue(r));
        }
    }

    /** A cursor's field: its batch as raw documents, anything else decoded. */
    private static BsonValue cursorField(String name, BsonBinaryReader reader) {
        boolean batch = (name.equals("firstBatch") || name.equals("nextBatch")) && reader.getCurrentBsonType() == BsonType.ARRAY;
        return batch ? readArray(reader) : decodeValue(reader);
    }

    private static BsonValue decodeValue(BsonBinaryReader reader) {
        return VALUE_CODEC.decode(reader, DecoderContext.builder().build());
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
