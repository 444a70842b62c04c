package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import java.time.Duration;
import java.util.stream.IntStream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The images {@code docker-compose.yml} builds (one per service from {@code docker/Dockerfile}) with PostgreSQL 17 and
 * Apache Kafka 4.1 containers, end to end through the router: the shards register, a hashed collection spreads over
 * them, and every document inserted is counted back. Needs a Docker engine with Compose; skipped without one (JUnit
 * reports "Docker is not available"), as on the machine this project is developed on.
 */
@Testcontainers(disabledWithoutDocker = true)
class ComposeClusterIT {
    private static final int ROUTER_PORT = 8080;
    private static ComposeContainer compose;
    private static RouterClient router;

    @BeforeAll
    static void up() {
        compose = new ComposeContainer(RepoLayout.detect().root().resolve("docker-compose.yml").toFile())
                .withBuild(true)
                .withExposedService("router", ROUTER_PORT, Wait.forHttp("/actuator/health").withStartupTimeout(Duration.ofMinutes(10)));
        compose.start();
        router = new RouterClient("http://" + compose.getServiceHost("router", ROUTER_PORT) + ":" + compose.getServicePort("router", ROUTER_PORT),
                Duration.ofSeconds(60));
    }

    @AfterAll
    static void down() {
        if (compose != null) {
            compose.stop();
        }
    }

    @Test
    void aHashedCollectionSpreadsOverTheComposeShardsAndEveryDocumentIsCountedBack() throws Exception {
        await("the register-shards job adds shard1..3").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(2))
                .until(() -> router.run("admin", new BsonDocument("listShards", new BsonInt32(1))).getArray("shards", new BsonArray()).size() >= 3);
        RouterClient.requireOk("shardCollection", router.run("admin", new BsonDocument("shardCollection", new BsonString("compose.points"))
                .append("key", new BsonDocument("_id", new BsonString("hashed")))));
        BsonArray documents = new BsonArray(IntStream.range(0, 1_000).mapToObj(i -> (org.bson.BsonValue) new BsonDocument("_id", new BsonInt32(i))).toList());
        BsonDocument inserted = router.run("compose", new BsonDocument("insert", new BsonString("points")).append("documents", documents));
        assertThat(inserted.getNumber("n").intValue()).isEqualTo(1_000);
        BsonDocument count = router.run("compose", new BsonDocument("count", new BsonString("points")));
        assertThat(count.getNumber("n").longValue()).isEqualTo(1_000);
        BsonDocument explain = router.run("compose", new BsonDocument("explain", new BsonDocument("find", new BsonString("points"))));
        assertThat(explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards")).hasSize(3);
    }
}
