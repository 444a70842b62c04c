package dev.shardstore.contracts.keystring;

import java.util.Arrays;

/** The growable buffer one encoding is written into; confined to a single {@code encode} call. */
final class ByteSink {
    private byte[] bytes;
    private int size;

    ByteSink(int initialCapacity) {
        bytes = new byte[initialCapacity];
    }

    int size() {
        return size;
    }

    void write(int b) {
        if (size == bytes.length) {
            grow(1);
        }
        bytes[size++] = (byte) b;
    }

    void writeBytes(byte[] b) {
        if (size + b.length > bytes.length) {
            grow(b.length);
        }
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
    }

    /** Writes the {@code count} low-order bytes of {@code v}, most significant first. */
    void writeLowBytes(long v, int count) {
        if (size + count > bytes.length) {
            grow(count);
        }
        for (int shift = (count - 1) * Byte.SIZE; shift >= 0; shift -= Byte.SIZE) {
            bytes[size++] = (byte) (v >>> shift);
        }
    }

    void writeInt(int v) {
        writeLowBytes(v, Integer.BYTES);
    }

    void writeLong(long v) {
        writeLowBytes(v, Long.BYTES);
    }

    /** Overwrites the four bytes at {@code position} (written earlier) with {@code v}, big-endian. */
    void setInt(int position, int v) {
        for (int i = 0; i < Integer.BYTES; i++) {
            bytes[position + i] = (byte) (v >>> (Integer.SIZE - Byte.SIZE * (i + 1)));
        }
    }

    /** Inverts every byte from {@code position} on, which reverses the order of what was written there. */
    void invertFrom(int position) {
        for (int i = position; i < size; i++) {
            bytes[i] = (byte) ~bytes[i];
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void grow(int needed) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + needed));
    }
}
