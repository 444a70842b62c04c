package dev.shardstore.shard.cursor;

import dev.shardstore.engine.spill.Interruption;
import dev.shardstore.support.operation.OperationContext;

/**
 * The {@link Interruption} of a cursor's blocking stages: the operation reading the cursor now, the command that opened
 * it and then each getMore ({@link StreamCursor} sets it at every batch). So a sort merged while a getMore reads stops
 * when that getMore is killed, and spends that getMore's share of the cursor's {@code maxTimeMS}, not the opening
 * command's deadline, which has passed by then (docs/architecture.md "The operation context"). One reader at a time, as
 * a cursor has; the field is volatile for the getMore that reads it on another thread.
 */
public final class ReadingOperation implements Interruption {
    private volatile OperationContext reading;

    /** @param opening the command that opens the cursor */
    public ReadingOperation(OperationContext opening) {
        this.reading = opening;
    }

    /** From now on, {@code opCtx} reads (a getMore). */
    void readBy(OperationContext opCtx) {
        this.reading = opCtx;
    }

    @Override
    public void check() {
        reading.checkForInterrupt();
    }
}
