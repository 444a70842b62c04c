package dev.shardstore.cluster.holder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * What the PostgreSQL and Kafka holder processes share: once their server is up they announce it
 * with a ready file, then keep it until the process receives SIGTERM, SIGINT or SIGHUP, and stop it.
 *
 * <p>The server is stopped from the signal, before the JVM's shutdown begins, rather than from a
 * shutdown hook: Kafka's test kit deletes its log directories in a shutdown hook of its own, which
 * would race with the broker still writing its checkpoints.
 */
final class Holder {
    private static final Logger log = LoggerFactory.getLogger(Holder.class);

    private Holder() {}

    /**
     * Writes {@code content} to {@code readyFile} atomically (the launcher polls for the file), blocks
     * until a termination signal, then closes {@code server}.
     */
    static void serveUntilSignalled(String what, AutoCloseable server, Path readyFile, String content) throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        for (String signal : new String[] {"TERM", "INT", "HUP"}) {
            Signal.handle(new Signal(signal), s -> {
                log.info("received SIG{}", s.getName());
                stop.countDown();
            });
        }
        announce(readyFile, content);
        log.info("{} ready: {}", what, content);
        stop.await();
        log.info("stopping {}", what);
        server.close();
        log.info("{} stopped", what);
    }

    private static void announce(Path readyFile, String content) throws IOException {
        Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
        Files.createDirectories(readyFile.getParent());
        Files.writeString(tmp, content + System.lineSeparator());
        Files.move(tmp, readyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
