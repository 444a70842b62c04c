package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ServiceLaunch} on a copy of a real service jar (the session service's, built before this module's tests run
 * in the reactor): extracted once, again when the jar changes, a broken jar refused with its name; the archive options
 * name one writer.
 */
class ServiceLaunchTest {
    private static final String MODULE = "session-service";
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();

    @TempDir
    Path root;

    private ServiceLaunch launchOfACopy() throws Exception {
        Path built = RepoLayout.detect().serviceJar(MODULE);
        assumeTrue(Files.isRegularFile(built), "needs " + built + " (./mvnw package builds it before this module's tests)");
        RepoLayout repo = new RepoLayout(root);
        Files.createDirectories(repo.serviceJar(MODULE).getParent());
        Files.copy(built, repo.serviceJar(MODULE));
        return new ServiceLaunch(repo, JAVA);
    }

    @Test
    void theJarIsExtractedOnceAndAgainWhenItChanges() throws Exception {
        ServiceLaunch launch = launchOfACopy();
        Path jar = launch.extracted(MODULE);
        assertThat(jar).isRegularFile().hasFileName(MODULE + ".jar");
        assertThat(jar.resolveSibling("lib")).isDirectory();
        try (var libs = Files.list(jar.resolveSibling("lib"))) {
            assertThat(libs.filter(p -> p.getFileName().toString().startsWith("spring-boot-"))).isNotEmpty();
        }
        Path marker = Files.createFile(jar.resolveSibling("marker"));

        assertThat(launch.extracted(MODULE)).isEqualTo(jar);
        assertThat(marker).as("an unchanged jar is not extracted again").exists();

        Path bootJar = new RepoLayout(root).serviceJar(MODULE);
        Files.setLastModifiedTime(bootJar, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(launch.extracted(MODULE)).isEqualTo(jar).isRegularFile();
        assertThat(marker).as("a changed jar is extracted afresh").doesNotExist();
    }

    @Test
    void oneInstancePerModuleWritesTheArchiveAndEveryOneMapsIt() throws Exception {
        ServiceLaunch launch = launchOfACopy();
        Path archive = root.resolve(MODULE).resolve("target").resolve("launch").resolve(MODULE + ".jsa");
        Path jar = launch.extracted(MODULE);

        assertThat(launch.jvmArguments(MODULE, true))
                .containsExactly(ServiceLaunch.WRITE_ARCHIVE, "-XX:SharedArchiveFile=" + archive, "-jar", jar.toString());
        assertThat(launch.jvmArguments(MODULE, false)).containsExactly("-XX:SharedArchiveFile=" + archive, "-jar", jar.toString());
    }

    @Test
    void aJarThatIsNotABootJarIsRefusedWithItsName() throws Exception {
        RepoLayout repo = new RepoLayout(root);
        Files.createDirectories(repo.serviceJar(MODULE).getParent());
        Files.writeString(repo.serviceJar(MODULE), "not a jar");

        assertThatThrownBy(() -> new ServiceLaunch(repo, JAVA).extracted(MODULE))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(repo.serviceJar(MODULE).toString());
        assertThat(repo.serviceJar(MODULE).resolveSibling("launch").resolve(MODULE)).as("nothing half-extracted is used").doesNotExist();
    }
}
