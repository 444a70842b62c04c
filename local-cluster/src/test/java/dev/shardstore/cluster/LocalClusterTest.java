package dev.shardstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.cluster.cli.ClusterCli;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.testing.FakeRepo;
import dev.shardstore.infra.Ports;
import dev.shardstore.infra.PostgresDurability;
import dev.shardstore.infra.Postmaster;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives {@link LocalCluster} with the real PostgreSQL and Kafka holder processes and
 * {@link dev.shardstore.cluster.testing.FakeService} in place of every service.
 */
class LocalClusterTest {
    private static final Duration SHORT = Duration.ofMillis(300);

    @TempDir
    Path dir;

    @Test
    void runsEveryComponentAsItsOwnProcessAndKeepsDataAcrossRestarts() throws Exception {
        ClusterOptions options = options(FakeRepo.create(dir.resolve("repo")), 2, 2);
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Topology topology = options.topology();
        Component postgres = topology.component("postgres");

        try (LocalCluster cluster = LocalCluster.start(options, lines::add)) {
            List<ComponentStatus> statuses = cluster.status();
            assertThat(statuses).hasSize(10).allSatisfy(s -> {
                assertThat(s.running()).as(s.component().name()).isTrue();
                assertThat(s.health().up()).as(s.component().name() + ": " + s.health()).isTrue();
                assertThat(s.pid().getAsLong()).isNotEqualTo(ProcessHandle.current().pid());
            });
            assertThat(statuses.stream().mapToLong(s -> s.pid().getAsLong()).distinct().count()).isEqualTo(10);
            assertThat(lines).contains("registered shard1, shard2 through router1");
            assertThat(Files.exists(options.home().resolve("cluster.json"))).isTrue();

            RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(10));
            BsonDocument shards = router.run("admin", new BsonDocument("listShards", new BsonInt32(1)));
            assertThat(shards.getArray("shards")).extracting(s -> s.asDocument().getString("host").getValue())
                    .containsExactly(cluster.url("shard1"), cluster.url("shard2"));

            assertThat(args(cluster.url("shard2"))).contains(
                    "--server.port=" + topology.component("shard2").port(),
                    "--spring.datasource.url=jdbc:postgresql://localhost:" + postgres.port() + "/shard2",
                    "--spring.datasource.username=postgres",
                    "--spring.kafka.bootstrap-servers=" + cluster.kafkaBootstrapServers(),
                    "--shardstore.config-url=" + cluster.url("config"),
                    "--shardstore.shard.name=shard2");
            assertThat(args(cluster.routerUrl(2))).contains("--shardstore.router.name=router2")
                    .noneMatch(a -> a.startsWith("--spring.datasource"));
            assertThat(args(cluster.url("balancer"))).noneMatch(a -> a.startsWith("--spring.datasource"));
            assertThat(args(cluster.url("resharding"))).contains(
                    "--spring.datasource.url=jdbc:postgresql://localhost:" + postgres.port() + "/resharding");
            assertThat(args(cluster.url("config"))).noneMatch(a -> a.startsWith("--shardstore.config-url"));
            assertThat(args(cluster.url("session"))).contains(
                    "--spring.datasource.url=jdbc:postgresql://localhost:" + postgres.port() + "/sessions");

            for (String db : topology.databases()) {
                try (Connection c = connect(cluster.jdbcUrl(db))) {
                    assertThat(c.isValid(5)).as(db).isTrue();
                }
            }
            try (Connection c = connect(cluster.jdbcUrl("shard1")); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (v text)");
                s.execute("INSERT INTO kept VALUES ('survives down and up')");
            }

            cluster.killService("shard2");
            assertThat(statusOf(cluster, "shard2").running()).isFalse();
            assertThat(statusOf(cluster, "shard2").health().detail()).isEqualTo("not running");
            cluster.startService("shard2");
            assertThat(statusOf(cluster, "shard2").health().up()).isTrue();
            assertThat(Files.readString(cluster.home().log("shard2"))).contains("=== shard2 restarted at");
            assertThatThrownBy(() -> cluster.startService("shard2")).hasMessageContaining("shard2 is already running");

            assertThatThrownBy(() -> LocalCluster.start(options, lines::add)).isInstanceOf(ClusterRunningException.class);
            assertThat(LocalCluster.attach(options.home(), lines::add).orElseThrow().isRunning()).isTrue();

            // A holder JVM killed outright leaves its PostgreSQL server behind; stopping the cluster stops that too.
            ProcessHandle holder = ProcessHandle.of(statusOf(cluster, "postgres").pid().getAsLong()).orElseThrow();
            holder.destroyForcibly();
            holder.onExit().get();
            assertThat(Postmaster.find(options.home().resolve("postgres"))).isPresent();
        }

        assertThat(lines).contains("stopped a PostgreSQL server its holder had left running");
        assertThat(Files.exists(options.home().resolve("cluster.json"))).isFalse();
        assertThat(Postmaster.find(options.home().resolve("postgres"))).isEmpty();
        topology.components().forEach(c -> assertThat(Ports.isListening(c.port(), SHORT)).as(c.name()).isFalse());

        try (LocalCluster again = LocalCluster.start(options, lines::add);
             Connection c = connect(again.jdbcUrl("shard1")); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT v FROM kept")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("survives down and up");
        }
    }

    /**
     * The cluster's own start-up path (holder process, persistent data directory) gives PostgreSQL the durability asked
     * for: durable when named, fast (as this suite asks for in the root pom.xml) otherwise, and says which.
     */
    @Test
    void postgresCommitsDurablyUnlessTheFastSettingIsAskedFor() throws Exception {
        ClusterOptions fast = options(FakeRepo.create(dir.resolve("repo")), 1, 1);
        assertThat(fast.durability()).as("the suite's setting, from the root pom.xml").isEqualTo(PostgresDurability.FAST);
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        try (LocalCluster cluster = LocalCluster.start(fast.withDurability(PostgresDurability.DURABLE), lines::add)) {
            assertThat(durabilitySettings(cluster)).containsExactly("on", "on", "on");
            assertThat(Files.readString(cluster.home().log("postgres"))).contains(PostgresDurability.DURABLE.describe());
        }
        assertThat(lines).contains(PostgresDurability.DURABLE.describe());
        try (LocalCluster cluster = LocalCluster.start(fast, lines::add)) {
            assertThat(durabilitySettings(cluster)).containsExactly("off", "off", "on");
            assertThat(Files.readString(cluster.home().log("postgres"))).contains("not crash-safe");
        }
        assertThat(lines).contains(PostgresDurability.FAST.describe());
    }

    private static List<String> durabilitySettings(LocalCluster cluster) throws Exception {
        List<String> values = new ArrayList<>();
        try (Connection c = connect(cluster.jdbcUrl("shard1")); Statement s = c.createStatement()) {
            for (String setting : List.of("fsync", "synchronous_commit", "full_page_writes")) {
                try (ResultSet rows = s.executeQuery("SHOW " + setting)) {
                    assertThat(rows.next()).isTrue();
                    values.add(rows.getString(1));
                }
            }
        }
        return values;
    }

    @Test
    void theCommandLineShowsStatusAndLogsAndStopsTheCluster() throws Exception {
        ClusterOptions options = options(FakeRepo.create(dir.resolve("repo")), 1, 1);
        String home = options.home().toString();
        try (LocalCluster cluster = LocalCluster.start(options, line -> { })) {
            assertThat(cli("status", "--home", home)).startsWith("0\n").contains("COMPONENT").containsPattern("shard1 +\\d+ +yes");
            assertThat(cli("logs", "shard1", "--home", home)).contains("fake service listening on " + cluster.topology().component("shard1").port());
            assertThat(cli("logs", "postgres", "--home", home)).contains("PostgreSQL ready");
            assertThat(cli("logs", "shard9", "--home", home)).startsWith("1\n").contains("no log for 'shard9'").contains("shard1");

            cluster.killService("balancer");
            assertThat(cli("status", "--home", home)).startsWith("1\n").containsPattern("balancer +\\d+ +no");
            assertThat(cli("start", "balancer", "--home", home)).startsWith("0\n").contains("balancer is up");
            assertThat(cli("status", "--home", home)).containsPattern("balancer +\\d+ +yes");
            assertThat(cli("stop", "shard1", "--home", home)).startsWith("0\n").contains("shard1 stopped");
            assertThat(cli("stop", "shard1", "--home", home)).startsWith("1\n").contains("shard1 is not running");
            assertThat(cli("start", "shard1", "--home", home)).contains("shard1 is up");
            assertThat(cli("kill", "session", "--home", home)).contains("session killed");
            assertThat(cli("kill", "shard7", "--home", home)).startsWith("1\n").contains("shard7");

            assertThat(cli("down", "--home", home)).contains("the cluster is down");
            assertThat(cluster.isRunning()).isFalse();
            assertThat(cli("status", "--home", home)).contains("no cluster is recorded");
            assertThat(options.home().resolve("postgres")).isNotEmptyDirectory();
            assertThat(cli("down", "--purge", "--home", home)).startsWith("0\n").contains("deleted " + home);
            assertThat(options.home()).doesNotExist();
        }
    }

    @Test
    void missingJarsAndTakenPortsAreNamedBeforeAnythingStarts() throws Exception {
        RepoLayout empty = new RepoLayout(dir.resolve("empty"));
        assertThatThrownBy(() -> LocalCluster.start(options(empty, 1, 1), line -> { }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("service jars are missing: config-service (" + empty.serviceJar("config-service") + ")")
                .hasMessageContaining("./mvnw -DskipTests package");

        ClusterOptions options = options(FakeRepo.create(dir.resolve("repo")), 1, 1);
        int configPort = options.topology().component("config").port();
        try (ServerSocket taken = new ServerSocket(configPort)) {
            assertThatThrownBy(() -> LocalCluster.start(options, line -> { }))
                    .isInstanceOf(Ports.PortInUseException.class)
                    .hasMessageContaining("port " + configPort + " for config is already in use");
        }
        assertThat(Files.exists(options.home().resolve("cluster.json"))).isFalse();
    }

    @Test
    void aServiceThatExitsFailsTheStartWithItsLogAndStopsEverything() throws Exception {
        RepoLayout repo = FakeRepo.create(dir.resolve("repo"));
        Files.writeString(repo.serviceJar("config-service"), "not a jar");
        ClusterOptions options = options(repo, 1, 1);

        assertThatThrownBy(() -> LocalCluster.start(options, line -> { }))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("config exited during startup; see " + options.home().resolve("logs/config.log"))
                .hasMessageContaining("Invalid or corrupt jarfile");
        assertThat(Files.exists(options.home().resolve("cluster.json"))).isFalse();
        options.topology().components().forEach(c -> assertThat(Ports.isListening(c.port(), SHORT)).as(c.name()).isFalse());
    }

    /**
     * A machine that never ran the project: PostgreSQL's binaries are unpacked by the holder process itself, within its
     * heap cap (96 MB ran out of heap); then a directory left half unpacked by a dead start (no finished marker, no
     * {@code bin/}) is redone instead of failing every later start with FileAlreadyExistsException.
     */
    @Test
    void startsWithNoUnpackedBinariesAndOverAHalfUnpackedDirectory() throws Exception {
        Path binaries = dir.resolve("pg-binaries");
        ClusterOptions options = options(FakeRepo.create(dir.resolve("repo")), 1, 1).withPostgresBinaries(binaries);
        try (LocalCluster cluster = LocalCluster.start(options, line -> { })) {
            assertThat(statusOf(cluster, "postgres").running()).isTrue();
        }
        Path unpacked;
        try (var dirs = Files.list(binaries)) {
            unpacked = dirs.filter(p -> p.getFileName().toString().startsWith("PG-")).findFirst().orElseThrow();
        }
        assertThat(unpacked.resolve(".exists")).exists();
        Files.delete(unpacked.resolve(".exists"));
        try (var files = Files.walk(unpacked.resolve("bin"))) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        assertThat(unpacked.resolve("lib")).isNotEmptyDirectory();

        try (LocalCluster cluster = LocalCluster.start(options, line -> { })) {
            assertThat(statusOf(cluster, "postgres").running()).isTrue();
            try (Connection c = connect(cluster.jdbcUrl("shard1")); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
                assertThat(rs.next()).isTrue();
            }
        }
        assertThat(unpacked.resolve(".exists")).exists();
        assertThat(unpacked.resolve("bin/postgres")).exists();
    }

    private ClusterOptions options(RepoLayout repo, int shards, int routers) {
        return ClusterOptions.defaults(repo)
                .withHome(dir.resolve("home"))
                .withShards(shards)
                .withRouters(routers)
                .withPortOffset(freeOffset(shards, routers))
                .withStartTimeout(Duration.ofMinutes(2))
                .withServiceJvmOptions(List.of("-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    }

    /** An offset whose ports are all free, away from the developer cluster's defaults. */
    private static int freeOffset(int shards, int routers) {
        return IntStream.iterate(2500, o -> o <= Topology.MAX_PORT_OFFSET, o -> o + 37)
                .filter(o -> Topology.plan(shards, routers, o).components().stream().allMatch(c -> isFree(c.port())))
                .findFirst().orElseThrow();
    }

    private static boolean isFree(int port) {
        try {
            Ports.requireFree(port, "test");
            return true;
        } catch (Ports.PortInUseException e) {
            return false;
        }
    }

    private static ComponentStatus statusOf(LocalCluster cluster, String name) {
        return cluster.status().stream().filter(s -> s.component().name().equals(name)).findFirst().orElseThrow();
    }

    private static List<String> args(String serviceUrl) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(serviceUrl + "/args")).build(), HttpResponse.BodyHandlers.ofString());
        return BsonDocument.parse(response.body()).getArray("args").stream().map(BsonValue::asString).map(s -> s.getValue()).toList();
    }

    private static Connection connect(String url) throws Exception {
        return DriverManager.getConnection(url, "postgres", "postgres");
    }

    /** Runs the command line; returns its exit code, a newline, then what it printed. */
    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        var commandLine = ClusterCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        int code = commandLine.execute(args);
        return code + "\n" + out;
    }
}
