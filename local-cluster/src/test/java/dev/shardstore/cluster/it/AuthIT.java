package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.shardstore.cluster.ClusterHome;
import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A cluster started as {@code ./cluster up --auth} (one shard, two routers, the console, port offset 3600): user
 * {@code admin} made through the localhost exception, then the official Java driver with SCRAM-SHA-256; refused commands
 * write nothing; users survive a config service restart; a password change holds at once on the other router
 * (docs/architecture.md "Security"); the console runs as its own user, and shows the code of an action it may not run.
 */
class AuthIT {
    private static final int PORT_OFFSET = 3600;
    private static final String ADMIN_PASSWORD = "it-admin-secret";
    private static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        Path home = Files.createTempDirectory("shardstore-auth-it-");
        new ClusterHome(home).writeAdminPassword(ADMIN_PASSWORD);
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add(LocalCluster.AUTH_OPTION);
        // the console's meters sampled every second, so that its charts have points within the test
        jvm.add("-Dshardstore.console.sample-interval=1s");
        Consumer<String> out = line -> System.out.println("[cluster] " + line);
        cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(home).withShards(1).withRouters(2)
                .withPortOffset(PORT_OFFSET).withConsole(true).withServiceJvmOptions(jvm), out);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    /** A driver on router {@code router} as {@code user} (on {@code authSource}), or unauthenticated when user is null. */
    private static MongoClient client(int router, String user, String password, String authSource) {
        String credentials = user == null ? "" : user + ":" + password + "@";
        return MongoClients.create(cluster.connectionString(router).replace("mongodb://", "mongodb://" + credentials)
                + "/?authSource=" + authSource + "&serverSelectionTimeoutMS=10000");
    }

    private static MongoClient admin() {
        return client(1, "admin", ADMIN_PASSWORD, "admin");
    }

    private static long count(String db) {
        try (MongoClient admin = admin()) {
            return admin.getDatabase(db).getCollection("orders").countDocuments();
        }
    }

    private static void assertCode(Throwable thrown, int code) {
        Throwable cause = thrown instanceof MongoCommandException ? thrown : thrown.getCause();
        assertThat(cause).as(thrown.toString()).isInstanceOfSatisfying(MongoCommandException.class, c -> assertThat(c.getErrorCode()).isEqualTo(code));
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> console(String method, String path) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(cluster.url("console") + path)).timeout(Duration.ofSeconds(30));
        return HTTP.send(method.equals("POST") ? request.POST(HttpRequest.BodyPublishers.noBody()).build() : request.GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The console started by {@code --auth} authenticates as user {@code console} (clusterMonitor, clusterManager; its
     * password in the cluster home's 0600 file, not on its command line): its pages read the cluster unrefused and its
     * charts get the shard's meters; once {@code clusterManager} is revoked, its balancer action shows the router's
     * Unauthorized (13) in the page, while its pages still read.
     */
    @Test
    void theConsoleRunsAsItsOwnUserAndShowsTheCodeOfARefusedAction() throws Exception {
        assertThat(Files.getPosixFilePermissions(cluster.home().consoleCredentialsFile()))
                .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        assertThat(Files.readString(cluster.home().stateFile())).contains("console-credentials.properties")
                .doesNotContain(cluster.home().consolePassword().orElseThrow());
        // /operations too: its $currentOp with allUsers needs inprog on the cluster, which clusterMonitor holds
        for (String page : new String[] {"/", "/live/overview", "/movements", "/balancer", "/operations"}) {
            HttpResponse<String> response = console("GET", page);
            assertThat(response.statusCode()).as(page).isEqualTo(200);
            assertThat(response.body()).as(page).doesNotContain("Unauthorized (13)", "AuthenticationFailed (18)");
        }
        assertThat(console("GET", "/operations").body()).doesNotContain("AuthenticationFailed (18)");
        assertThat(console("GET", "/live/overview").body()).contains("data-health=\"UP\"");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(console("GET", "/operations/meters").body())
                .contains("\"shard\": \"shard1\"").containsPattern("\\[\\d+, [0-9.]+, "));

        try (MongoClient admin = admin()) {
            admin.getDatabase("admin").runCommand(new Document("revokeRolesFromUser", LocalCluster.CONSOLE_USER).append("roles", List.of("clusterManager")));
            try {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(console("POST", "/balancer/stop").body())
                        .contains("balancerStop refused: Unauthorized (13)"));
                assertThat(console("GET", "/live/overview").body()).contains("data-health=\"UP\"").doesNotContain("Unauthorized (13)");
            } finally {
                admin.getDatabase("admin").runCommand(new Document("grantRolesToUser", LocalCluster.CONSOLE_USER).append("roles", List.of("clusterManager")));
            }
        }
    }

    @Test
    void scramUsersRolesTheFirstUserRestartsAndPasswordChanges() throws Exception {
        assertThat(Files.getPosixFilePermissions(cluster.home().adminPasswordFile()))
                .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        try (MongoClient admin = admin()) {
            admin.getDatabase("shop").runCommand(new Document("createUser", "reader").append("pwd", "reader-pw").append("roles", List.of("read")));
            admin.getDatabase("shop").runCommand(new Document("createUser", "writer").append("pwd", "writer-pw").append("roles", List.of("readWrite")));
            admin.getDatabase("shop").getCollection("orders").insertOne(new Document("_id", 1));
            assertThatThrownBy(() -> admin.getDatabase("shop").runCommand(new Document("createUser", "reader").append("pwd", "x")
                    .append("roles", List.of()))).satisfies(e -> assertCode(e, 51003));
            assertThat(admin.getDatabase("admin").runCommand(new Document("connectionStatus", 1)).toJson())
                    .contains("\"user\": \"admin\"", "\"role\": \"root\"");
        }

        try (MongoClient wrong = client(1, "admin", "wrong", "admin")) {
            assertThatThrownBy(() -> wrong.getDatabase("shop").getCollection("orders").countDocuments()).satisfies(e -> assertCode(e, 18));
        }
        try (MongoClient anonymous = client(1, null, null, "admin")) {
            assertThatThrownBy(() -> anonymous.getDatabase("shop").getCollection("orders").find().first()).satisfies(e -> assertCode(e, 13));
            // the localhost exception made admin and closed with it
            assertThatThrownBy(() -> anonymous.getDatabase("admin").runCommand(new Document("createUser", "intruder").append("pwd", "x")
                    .append("roles", List.of("root")))).satisfies(e -> assertCode(e, 13));
        }
        try (MongoClient reader = client(1, "reader", "reader-pw", "shop")) {
            assertThat(reader.getDatabase("shop").getCollection("orders").find().first()).isNotNull();
            assertThatThrownBy(() -> reader.getDatabase("shop").getCollection("orders").insertOne(new Document("_id", 2)))
                    .satisfies(e -> assertCode(e, 13));
        }
        try (MongoClient writer = client(1, "writer", "writer-pw", "shop")) {
            writer.getDatabase("shop").getCollection("orders").insertOne(new Document("_id", 3));
            assertThatThrownBy(() -> writer.getDatabase("crm").getCollection("orders").insertOne(new Document("_id", 4)))
                    .satisfies(e -> assertCode(e, 13));
        }
        assertThat(count("shop")).isEqualTo(2);
        assertThat(count("crm")).isZero();

        // a cursor is read and killed by the user who opened it only (MongoDB's rule), even by root
        try (MongoClient reader = client(1, "reader", "reader-pw", "shop"); MongoClient admin = admin()) {
            long id = reader.getDatabase("shop").runCommand(new Document("find", "orders").append("batchSize", 1))
                    .get("cursor", Document.class).get("id", Number.class).longValue();
            assertThat(id).isNotZero();
            assertThatThrownBy(() -> admin.getDatabase("shop").runCommand(new Document("getMore", id).append("collection", "orders")))
                    .satisfies(e -> assertCode(e, 13));
            assertThatThrownBy(() -> admin.getDatabase("shop").runCommand(new Document("killCursors", "orders").append("cursors", List.of(id))))
                    .satisfies(e -> assertCode(e, 13));
            assertThat(reader.getDatabase("shop").runCommand(new Document("getMore", id).append("collection", "orders"))
                    .get("cursor", Document.class).getList("nextBatch", Document.class)).hasSize(1);
        }

        // listDatabases: a user without the cluster action lists the databases it has privileges in
        try (MongoClient reader = client(1, "reader", "reader-pw", "shop"); MongoClient admin = admin()) {
            admin.getDatabase("hr").getCollection("staff").insertOne(new Document("_id", 1));
            assertThat(reader.listDatabaseNames()).containsExactly("shop");
            assertThat(admin.listDatabaseNames()).contains("shop", "hr");
            assertThatThrownBy(() -> reader.getDatabase("admin").runCommand(new Document("listDatabases", 1).append("authorizedDatabases", false)))
                    .satisfies(e -> assertCode(e, 13));
        }

        cluster.stopService("config");
        cluster.startService("config");
        try (MongoClient reader = client(2, "reader", "reader-pw", "shop")) {
            assertThat(reader.getDatabase("shop").getCollection("orders").countDocuments()).isEqualTo(2);
        }

        try (MongoClient onSecond = client(2, "writer", "writer-pw", "shop")) {
            assertThat(onSecond.getDatabase("shop").getCollection("orders").countDocuments()).isEqualTo(2);
            try (MongoClient admin = admin()) {
                admin.getDatabase("shop").runCommand(new Document("updateUser", "writer").append("pwd", "writer-pw-2"));
            }
        }
        try (MongoClient old = client(2, "writer", "writer-pw", "shop")) {
            assertThatThrownBy(() -> old.getDatabase("shop").getCollection("orders").countDocuments()).satisfies(e -> assertCode(e, 18));
        }
        try (MongoClient changed = client(2, "writer", "writer-pw-2", "shop")) {
            assertThat(changed.getDatabase("shop").getCollection("orders").countDocuments()).isEqualTo(2);
        }

        // router1's audit log: the user changes and the failed authentication, in its file and on Actuator, no password
        List<String> audit = Files.readAllLines(cluster.home().logs().resolve("router1-audit.json"));
        assertThat(audit).noneMatch(line -> line.contains("reader-pw") || line.contains("writer-pw") || line.contains(ADMIN_PASSWORD));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"atype\": \"createUser\"", "\"createUser\": \"reader\"",
                "\"user\": \"admin\"", "\"result\": 0"));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"atype\": \"createUser\"", "\"result\": 51003"));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"atype\": \"authenticate\"", "\"result\": 18"));
        assertThat(audit).noneMatch(line -> line.contains("\"atype\": \"insert\"") || line.contains("\"atype\": \"find\""));
        HttpResponse<String> anonymous = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.routerUrl(1) + "/actuator/audit")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isIn(401, 403);
        HttpResponse<String> events = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.routerUrl(1) + "/actuator/audit"))
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(("admin:" + ADMIN_PASSWORD)
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(events.statusCode()).isEqualTo(200);
        assertThat(events.body()).contains("\"atype\":\"createUser\"");
    }
}
