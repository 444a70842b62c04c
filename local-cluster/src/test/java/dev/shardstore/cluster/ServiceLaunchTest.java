package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ServiceLaunch} on a copy of a real service jar (the session service's, built before this module's tests run
 * in the reactor): extracted once, again when the jar changes; the archive options name one writer; a plain jar, or a
 * file that is no jar, goes to the JVM as it is; a Boot jar the tool cannot extract is refused with its name.
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
        Path archive = Files.writeString(launch.archive(MODULE), "an archive of this build");

        assertThat(launch.extracted(MODULE)).isEqualTo(jar);
        assertThat(marker).as("an unchanged jar is not extracted again").exists();
        assertThat(archive).as("nor its archive deleted").exists();

        Path bootJar = new RepoLayout(root).serviceJar(MODULE);
        Files.setLastModifiedTime(bootJar, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(launch.extracted(MODULE)).isEqualTo(jar).isRegularFile();
        assertThat(marker).as("a changed jar is extracted afresh").doesNotExist();
        assertThat(archive).as("and the archive of the old build deleted (the JVM would not rewrite it)").doesNotExist();
    }

    @Test
    void oneInstancePerModuleWritesTheArchiveAndEveryOneMapsIt() throws Exception {
        ServiceLaunch launch = launchOfACopy();
        Path archive = launch.archive(MODULE);
        assertThat(archive.getParent()).isEqualTo(root.resolve(MODULE).resolve("target").resolve("launch"));
        assertThat(archive.getFileName().toString()).startsWith(MODULE + "-" + Runtime.version().feature()).endsWith(".jsa");
        Path jar = launch.extracted(MODULE);

        assertThat(launch.jvmArguments(MODULE, true))
                .containsExactly(ServiceLaunch.WRITE_ARCHIVE, "-XX:SharedArchiveFile=" + archive, "-jar", jar.toString());
        assertThat(launch.jvmArguments(MODULE, false)).containsExactly("-XX:SharedArchiveFile=" + archive, "-jar", jar.toString());
    }

    @Test
    void aPlainJarOrAFileThatIsNoJarGoesToTheJvmAsItIs() throws Exception {
        RepoLayout repo = new RepoLayout(root);
        Path jar = repo.serviceJar(MODULE);
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "example.Main");
        new JarOutputStream(Files.newOutputStream(jar), manifest).close();
        assertThat(new ServiceLaunch(repo, JAVA).jvmArguments(MODULE, true)).containsExactly("-jar", jar.toString());

        Files.writeString(jar, "not a jar");
        assertThat(new ServiceLaunch(repo, JAVA).jvmArguments(MODULE, true)).as("the JVM's own error will name it")
                .containsExactly("-jar", jar.toString());
        assertThat(jar.resolveSibling("launch")).as("nothing extracted").doesNotExist();
    }

    @Test
    void aBootJarThatCannotBeExtractedIsRefusedWithItsName() throws Exception {
        RepoLayout repo = new RepoLayout(root);
        Path jar = repo.serviceJar(MODULE);
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "example.Missing");
        manifest.getMainAttributes().putValue("Spring-Boot-Version", "4.0.0");
        new JarOutputStream(Files.newOutputStream(jar), manifest).close();

        assertThatThrownBy(() -> new ServiceLaunch(repo, JAVA).jvmArguments(MODULE, true))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot extract " + jar)
                .rootCause().hasMessageContaining("exited with 1");
        assertThat(jar.resolveSibling("launch").resolve(MODULE)).as("nothing half-extracted is used").doesNotExist();
    }
}
