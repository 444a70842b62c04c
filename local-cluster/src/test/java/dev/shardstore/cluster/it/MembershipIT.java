package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.membership.ClusterKey;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A local cluster started with {@code --cluster-key} (separate processes: 2 shards, 1 router, ports offset 3650;
 * docs/architecture.md "Security", "Inside the cluster"): reads, writes and a chunk migration work end to end through
 * the router, every service proving membership to the others with the key; a caller without the key, straight to a
 * shard's and the config service's ports, is refused with Unauthorized (13) over HTTP and over the command port and
 * writes nothing; an internal command through the router is refused too; the key file is the owner's alone; and the
 * services listen on 127.0.0.1 only.
 */
class MembershipIT {
    private static final String DB = "member";
    private static LocalCluster cluster;
    private static RouterClient router;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);

    @BeforeAll
    static void start() throws IOException {
        cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(Files.createTempDirectory("shardstore-membership-it-"))
                .withShards(2).withRouters(1).withPortOffset(3650).withClusterKey(true), line -> System.out.println("[cluster] " + line));
        router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(2));
        ItSupport.ok(router, "admin", "{\"balancerStop\": 1}");
        ItSupport.ok(router, "admin", "{\"shardCollection\": \"member.c\", \"key\": {\"x\": 1}}");
        ItSupport.ok(router, "admin", "{\"split\": \"member.c\", \"middle\": {\"x\": 50}}");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    @Test
    void writesReadsAndAMigrationWorkThroughTheRouterWithTheKey() {
        StringBuilder docs = new StringBuilder();
        for (int x = 0; x < 100; x += 10) {
            docs.append(x == 0 ? "" : ", ").append("{\"_id\": ").append(x).append(", \"x\": ").append(x).append("}");
        }
        assertThat(ItSupport.ok(router, DB, "{\"insert\": \"c\", \"documents\": [" + docs + "]}").getNumber("n").intValue()).isEqualTo(10);
        String from = ItSupport.chunks(router, "member.c").stream().filter(c -> c.getDocument("min").get("x").isNumber()
                && c.getDocument("min").getNumber("x").intValue() == 50).findFirst().orElseThrow().getString("shard").getValue();
        String to = from.equals("shard1") ? "shard2" : "shard1";

        ItSupport.ok(router, "admin", "{\"moveChunk\": \"member.c\", \"find\": {\"x\": 60}, \"to\": \"" + to + "\", \"_waitForDelete\": true}");

        assertThat(ItSupport.chunksPerShard(router, "member.c")).containsEntry(to, 1L).containsEntry(from, 1L);
        assertThat(ItSupport.ok(router, DB, "{\"find\": \"c\", \"filter\": {\"x\": {\"$gte\": 0}}}").getDocument("cursor")
                .getArray("firstBatch")).hasSize(10);
        // straight to the shards, as members: the local cluster's helpers send the key
        assertThat(ItSupport.ownedOnShards(cluster, List.of(to), "member.c")).isEqualTo(5);
        assertThat(ItSupport.ownedOnShards(cluster, List.of(from, to), "member.c")).isEqualTo(10);
    }

    @Test
    void aCallerWithoutTheKeyIsRefusedByTheShardsAndTheConfigServiceAndWritesNothing() {
        long before = count();
        try (CommandClient anonymous = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(30));
                CommandClient impostor = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(30), null,
                        ClusterKey.of(ClusterKey.generate(new SecureRandom())))) {
            for (int call = 0; call < 2; call++) { // HTTP, then the command port the first reply names
                assertUnauthorized(anonymous.run("shard1", cluster.url("shard1"), DB, ExtendedJson.parse("{\"insert\": \"c\", \"documents\": [{\"_id\": -1, \"x\": -1}]}")));
                assertUnauthorized(anonymous.run("shard1", cluster.url("shard1"), "admin", new BsonDocument("_recvChunkStart", new BsonString("member.c"))));
                assertUnauthorized(anonymous.run("config", cluster.url("config"), "admin", new BsonDocument("find", new BsonString("system.keys"))));
                assertUnauthorized(anonymous.run("config", cluster.url("config"), "admin", new BsonDocument("_configsvrSetSettings",
                        new BsonString("chunksize")).append("set", new BsonDocument("value", new BsonInt32(1)))));
            }
            assertUnauthorized(impostor.run("shard2", cluster.url("shard2"), DB, ExtendedJson.parse("{\"insert\": \"c\", \"documents\": [{\"_id\": -2, \"x\": 70}]}")));
            assertThatThrownBy(() -> impostor.run("shard2", cluster.url("shard2"), DB, ExtendedJson.parse("{\"insert\": \"c\", \"documents\": [{\"_id\": -3, \"x\": 70}]}")))
                    .hasMessageContaining("membership");
        }
        assertThat(count()).isEqualTo(before);
        assertThat(ItSupport.ok(router, DB, "{\"insert\": \"after\", \"documents\": [{\"_id\": 1}]}").getNumber("n").intValue()).as("still serving").isEqualTo(1);
    }

    @Test
    void anInternalCommandThroughTheRouterIsUnauthorized() {
        BsonDocument reply = router.run("admin", ExtendedJson.parse("{\"_shardsvrMoveRange\": \"member.c\", \"toShard\": \"shard1\"}"));
        assertUnauthorized(reply);
    }

    @Test
    void theKeyFileIsTheOwnersAloneAndEveryServiceListensOnLoopbackOnly() throws IOException {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cluster.home().clusterKeyFile()))).isEqualTo("rw-------");
        assertThat(cluster.clusterKey()).isPresent();

        Optional<InetAddress> external = NetworkInterface.networkInterfaces().filter(this::up).flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress()).findFirst();
        Assumptions.assumeTrue(external.isPresent(), "this machine has no address but loopback");
        for (String service : List.of("shard1", "config", "router1")) {
            int port = cluster.topology().component(service).port();
            assertThatThrownBy(() -> {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(external.get(), port), 2000);
                }
            }).as(service + " on " + external.get()).isInstanceOf(IOException.class);
        }
    }

    private boolean up(NetworkInterface nic) {
        try {
            return nic.isUp();
        } catch (IOException e) {
            return false;
        }
    }

    private static long count() {
        return ItSupport.ok(router, DB, "{\"count\": \"c\"}").getNumber("n").longValue();
    }

    private static void assertUnauthorized(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isZero();
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(ErrorCode.Unauthorized.code());
    }
}
