package dev.shardstore.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.springframework.util.FileSystemUtils;

/**
 * How a service's JVM is started so that it starts fast: from its Spring Boot jar extracted once per build, with a
 * class-data-sharing (CDS) archive of the classes it loads. A cluster starts six to ten service JVMs on a machine that
 * may have 2 cores, and the end-to-end suite starts about sixteen clusters; without this, half of a service's start-up
 * CPU went into opening nested jars and loading and verifying classes (a shard: 5.3–5.6 CPU s from the jar, 4.2 from
 * the extracted jar, 2.6 with the archive; docs/benchmarks.md, "Service start-up").
 *
 * <ul>
 *   <li><b>Extraction</b>: Spring Boot's own tool ({@code java -Djarmode=tools -jar <module>.jar extract}) writes the
 *       application jar and its {@code lib/} into {@code <module>/target/launch/<module>/}; the JVM then runs that jar,
 *       whose manifest names the libraries. It is done again when the Boot jar changes (its size or time differ from
 *       those recorded beside the extraction), under a file lock, so two launchers never extract over each other.</li>
 *   <li><b>The archive</b>, {@code <module>/target/launch/<module>-<JDK version>.jsa}: written by the JVM itself when
 *       the first instance of the module (shard1, router1, config, …) exits ({@code -XX:+AutoCreateSharedArchive}, JDK
 *       19 and later), mapped by every later start of the module. The JVM writes a missing archive but does not rewrite
 *       one whose class path changed, so extracting a new build deletes the module's archive. A missing or unusable
 *       archive costs only the speed-up: the JVM starts without it. Only one instance per module writes: the JVM
 *       deletes and re-creates the file, and two writers exiting together could write into the same new file.</li>
 * </ul>
 * Nothing here is needed for correctness: a fresh clone extracts on the first start and writes the archives when that
 * cluster stops. A jar that is not a Spring Boot jar (the launcher's own tests start small stand-ins) runs as it is.
 */
final class ServiceLaunch {
    /** The option that makes an instance write its module's archive; {@link Commands#forAddedShard} drops it. */
    static final String WRITE_ARCHIVE = "-XX:+AutoCreateSharedArchive";

    private static final String STAMP = ".extracted-from";
    private static final long EXTRACT_TIMEOUT_SECONDS = 120;

    private final RepoLayout repo;
    private final String java;

    /**
     * @param repo the repository whose service jars are launched
     * @param java the java binary that extracts (and runs) them
     */
    ServiceLaunch(RepoLayout repo, String java) {
        this.repo = repo;
        this.java = java;
    }

    /**
     * The JVM arguments that run an instance of {@code module}, after the caller's JVM options: the archive options and
     * {@code -jar <extracted jar>}; the application's own arguments follow.
     *
     * @param writer whether this instance writes the module's archive when it exits (one instance per module)
     * @throws UncheckedIOException when the jar cannot be extracted
     */
    List<String> jvmArguments(String module, boolean writer) {
        Path bootJar = repo.serviceJar(module);
        if (!isBootJar(bootJar)) {
            return List.of("-jar", bootJar.toString());
        }
        List<String> args = new ArrayList<>();
        if (writer) {
            args.add(WRITE_ARCHIVE);
        }
        args.add("-XX:SharedArchiveFile=" + archive(module));
        args.add("-jar");
        args.add(extracted(module).toString());
        return args;
    }

    /**
     * The extracted application jar of {@code module}, extracting it first when it is missing or was extracted from
     * another build of the Boot jar. Serialised within this JVM (a {@link FileLock} does not exclude another thread of
     * the same JVM) and, through the lock file, with other launchers.
     */
    Path extracted(String module) {
        synchronized (ServiceLaunch.class) {
            return extractedLocked(module);
        }
    }

    private Path extractedLocked(String module) {
        Path bootJar = repo.serviceJar(module);
        Path dir = launchDir(module).resolve(module);
        Path jar = dir.resolve(module + ".jar");
        Path stamp = dir.resolve(STAMP);
        try {
            Files.createDirectories(launchDir(module));
            String source = Files.size(bootJar) + " " + Files.getLastModifiedTime(bootJar).toMillis();
            try (FileChannel lockFile = FileChannel.open(launchDir(module).resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock = lockFile.lock()) {
                if (Files.isRegularFile(jar) && Files.isRegularFile(stamp) && Files.readString(stamp).equals(source)) {
                    return jar;
                }
                Path staging = launchDir(module).resolve(module + ".extracting");
                FileSystemUtils.deleteRecursively(staging);
                extract(bootJar, staging);
                Files.writeString(staging.resolve(STAMP), source);
                FileSystemUtils.deleteRecursively(dir);
                Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
                // the JVM does not rewrite an archive whose class path changed (it only rewrites a missing one)
                Files.deleteIfExists(archive(module));
                return jar;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + bootJar + " into " + dir, e);
        }
    }

    /**
     * Whether {@code jar}'s manifest names a Spring Boot version; false for a file that is no readable jar, which then
     * goes to the JVM as it is, so that the service's start fails with the JVM's own message in its log.
     */
    private static boolean isBootJar(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            return manifest != null && manifest.getMainAttributes().getValue("Spring-Boot-Version") != null;
        } catch (IOException e) {
            return false;
        }
    }

    private void extract(Path bootJar, Path destination) throws IOException {
        Path log = destination.resolveSibling(destination.getFileName() + ".log");
        Process process = new ProcessBuilder(java, "-Djarmode=tools", "-jar", bootJar.toString(), "extract", "--destination",
                destination.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(EXTRACT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("extracting took over " + EXTRACT_TIMEOUT_SECONDS + " s; see " + log);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while extracting", e);
        }
        if (process.exitValue() != 0) {
            throw new IOException("Spring Boot's extract exited with " + process.exitValue() + ": " + Files.readString(log).strip());
        }
        Files.deleteIfExists(log);
    }

    /**
     * The module's archive, named after this JVM's version (the services run on the same java binary): the JVM rewrites
     * a missing archive but not one whose class path or JDK changed, so a new build deletes it and a new JDK names
     * another.
     */
    Path archive(String module) {
        return launchDir(module).resolve(module + "-" + Runtime.version().toString().replaceAll("[^A-Za-z0-9.+-]", "_") + ".jsa");
    }

    private Path launchDir(String module) {
        return repo.serviceJar(module).resolveSibling("launch");
    }
}
