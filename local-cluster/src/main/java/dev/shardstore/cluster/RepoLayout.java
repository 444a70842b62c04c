package dev.shardstore.cluster;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the shardstore checkout is, and where its build puts each service's jar
 * ({@code <root>/<module>/target/<module>.jar}).
 *
 * @param root the directory holding the root {@code pom.xml} and {@code local-cluster/}
 */
public record RepoLayout(Path root) {
    /** System property that names the checkout explicitly (set by the failsafe configuration). */
    public static final String REPO_PROPERTY = "shardstore.repo";

    public RepoLayout {
        root = root.toAbsolutePath().normalize();
    }

    /**
     * Finds the checkout: the {@value #REPO_PROPERTY} system property if set, else the nearest
     * directory above this launcher's own classes (or the working directory) that contains
     * {@code pom.xml} and {@code local-cluster/pom.xml}.
     *
     * @throws IllegalStateException when none is found
     */
    public static RepoLayout detect() {
        String explicit = System.getProperty(REPO_PROPERTY);
        if (explicit != null && !explicit.isBlank()) {
            return new RepoLayout(Path.of(explicit));
        }
        List<Path> starts = new ArrayList<>();
        codeLocation().ifPresent(starts::add);
        starts.add(Path.of("").toAbsolutePath());
        for (Path start : starts) {
            for (Path dir = start; dir != null; dir = dir.getParent()) {
                if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isRegularFile(dir.resolve("local-cluster/pom.xml"))) {
                    return new RepoLayout(dir);
                }
            }
        }
        throw new IllegalStateException("cannot find the shardstore checkout above " + starts
                + "; run from inside it or pass -D" + REPO_PROPERTY + "=DIR");
    }

    private static Optional<Path> codeLocation() {
        try {
            return Optional.of(Path.of(RepoLayout.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The jar of a service module, e.g. {@code <root>/shard-service/target/shard-service.jar}. */
    public Path serviceJar(String module) {
        return root.resolve(module).resolve("target").resolve(module + ".jar");
    }

    /** The default state directory, {@code <root>/.cluster}. */
    public Path defaultHome() {
        return root.resolve(".cluster");
    }
}
