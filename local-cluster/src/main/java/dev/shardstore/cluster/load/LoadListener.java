package dev.shardstore.cluster.load;

/** Follows a load's progress, e.g. to draw a progress bar. Called from the loading thread only. */
public interface LoadListener {
    /** A listener that ignores everything. */
    LoadListener NONE = new LoadListener() {
        @Override
        public void started(InputFile file) {}

        @Override
        public void progress(long bytesRead, long documentsSent) {}

        @Override
        public void finished() {}
    };

    /** The file is open; {@link InputFile#size()} is known. */
    void started(InputFile file);

    /** After each batch is sent: bytes read from disk so far and documents sent so far. */
    void progress(long bytesRead, long documentsSent);

    /** All replies are in (or the load failed). */
    void finished();
}
