package dev.shardstore.cluster.testing;

import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.Role;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.bson.BsonDocument;

/**
 * A checkout whose service jars are all {@link FakeService}: each {@code <module>/target/<module>.jar}
 * is a manifest-only jar whose main class is the fake and whose class path points at the test
 * classes and the BSON library, so {@code java -jar} runs it like a real service.
 */
public final class FakeRepo {
    private FakeRepo() {}

    public static RepoLayout create(Path root) throws IOException {
        Manifest manifest = new Manifest();
        Attributes attributes = manifest.getMainAttributes();
        attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        attributes.put(Attributes.Name.MAIN_CLASS, FakeService.class.getName());
        attributes.put(Attributes.Name.CLASS_PATH, codeSource(FakeService.class) + " " + codeSource(BsonDocument.class));
        for (String module : Stream.of(Role.values()).flatMap(r -> r.module().stream()).toList()) {
            Path jar = root.resolve(module).resolve("target").resolve(module + ".jar");
            Files.createDirectories(jar.getParent());
            try (OutputStream out = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(out, manifest)) {
                // manifest only
            }
        }
        return new RepoLayout(root);
    }

    private static String codeSource(Class<?> type) {
        try {
            return type.getProtectionDomain().getCodeSource().getLocation().toURI().toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
