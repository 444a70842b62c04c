package dev.shardstore.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresBinariesTest {
    @TempDir
    Path work;

    @Test
    void aFinishedUnpackIsKeptAndAHalfDoneOneIsEmptied() throws Exception {
        Path finished = Files.createDirectories(work.resolve("PG-aaa/bin"));
        Files.createFile(work.resolve("PG-aaa/.exists"));
        Path partial = Files.createDirectories(work.resolve("PG-bbb/lib"));
        Files.writeString(partial.resolve("libpq.so"), "x");

        assertThat(PostgresBinaries.discardPartialUnpacks(work)).containsExactly(work.resolve("PG-bbb"));

        assertThat(finished).exists();
        assertThat(partial).doesNotExist();
    }

    @Test
    void anUnpackInProgressInAnotherHolderOfTheLockIsLeftAlone() throws Exception {
        Path partial = Files.createDirectories(work.resolve("PG-ccc/lib"));
        try (FileChannel channel = FileChannel.open(work.resolve("PG-ccc/epg-lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = channel.lock()) {
            assertThat(PostgresBinaries.discardPartialUnpacks(work)).isEmpty();
        }
        assertThat(partial).exists();
        assertThat(PostgresBinaries.discardPartialUnpacks(work)).containsExactly(work.resolve("PG-ccc"));
    }

    @Test
    void theWorkingDirectoryFollowsZonkysRuleUnlessOverridden() {
        assertThat(PostgresBinaries.workingDirectory(Optional.of(work))).isEqualTo(work.toAbsolutePath());
        assertThat(PostgresBinaries.workingDirectory(Optional.empty()))
                .isEqualTo(Path.of(System.getProperty(PostgresBinaries.WORKING_DIRECTORY_PROPERTY, System.getProperty("java.io.tmpdir")), "embedded-pg").toAbsolutePath());
        assertThat(PostgresBinaries.discardPartialUnpacks(work.resolve("missing"))).isEqualTo(List.of());
    }
}
