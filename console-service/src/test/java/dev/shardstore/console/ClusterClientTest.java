package dev.shardstore.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterClient}'s credentials against a stand-in router that authenticates as router-service's
 * {@code RestAuthentication} does (HTTP Basic for {@code POST /api/v1/auth/token}, then the bearer token; a wrong one is
 * AuthenticationFailed 18, HTTP 401): the token is taken once and again before it expires or when the router no longer
 * knows it, other services get HTTP Basic, a wrong password is the router's 18, and without credentials nothing is sent.
 */
class ClusterClientTest {
    private static final String BASIC = "Basic " + Base64.getEncoder().encodeToString("console:secret".getBytes(StandardCharsets.UTF_8));
    private static final String REFUSED = "{\"ok\": 0, \"code\": 18, \"codeName\": \"AuthenticationFailed\", \"errmsg\": \"Authentication failed.\"}";

    private final TestClock clock = new TestClock();
    private final AtomicInteger issued = new AtomicInteger();
    /** The one token the stand-in router accepts now. */
    private final AtomicReference<String> valid = new AtomicReference<>("");
    private final StandIn router = new StandIn(this::answer);

    @AfterEach
    void stop() {
        router.close();
    }

    private StandIn.Answer answer(StandIn.Request request) {
        if (request.path().equals(ClusterClient.TOKEN_PATH)) {
            if (!BASIC.equals(request.authorization())) {
                return new StandIn.Answer(401, "application/problem+json", REFUSED);
            }
            valid.set("token-" + issued.incrementAndGet());
            return StandIn.Answer.json("{\"token\": \"" + valid.get() + "\", \"user\": \"admin.console\", \"expiresAt\": \""
                    + clock.instant().plus(Duration.ofHours(1)) + "\"}");
        }
        if (request.path().startsWith("/other/")) {
            return StandIn.Answer.json("{\"status\": \"UP\"}");
        }
        return ("Bearer " + valid.get()).equals(request.authorization()) ? StandIn.Answer.json("{\"ok\": 1}")
                : new StandIn.Answer(401, "application/problem+json", REFUSED);
    }

    private ClusterClient client(String user, String password) {
        String url = router.url();
        ConsoleProperties properties = new ConsoleProperties(List.of(url), url, url + "/other", url, url, null, Duration.ofSeconds(2), user,
                password, Duration.ofSeconds(5));
        return new ClusterClient(properties, clock);
    }

    private static BsonDocument ping() {
        return new BsonDocument("ping", new BsonInt32(1));
    }

    private List<String> authorizations() {
        return router.requests().stream().map(r -> r.path() + " " + r.authorization()).toList();
    }

    @Test
    void theRouterGetsATokenTakenOnceAndAgainBeforeItExpiresOrWhenItIsForgotten() {
        ClusterClient client = client("console", "secret");
        client.command("admin", ping());
        client.command("admin", ping());
        assertThat(authorizations()).containsExactly(ClusterClient.TOKEN_PATH + " " + BASIC, "/v1/databases/admin/command Bearer token-1",
                "/v1/databases/admin/command Bearer token-1");

        clock.advance(Duration.ofMinutes(59).plusSeconds(1));
        client.command("admin", ping());
        assertThat(issued).as("renewed a minute before the expiry").hasValue(2);

        valid.set("forgotten by a restarted router");
        assertThat(ClusterClient.isOk(client.command("admin", ping()))).isTrue();
        assertThat(issued).as("taken again after the router's 18").hasValue(3);
        assertThat(authorizations().getLast()).isEqualTo("/v1/databases/admin/command Bearer token-3");

        client.actuator(router.url() + "/other", "health");
        assertThat(authorizations().getLast()).as("a service other than the router").isEqualTo("/other/actuator/health " + BASIC);
    }

    @Test
    void aWrongPasswordIsTheRoutersAuthenticationFailedAndNoCredentialsSendNothing() {
        assertThatThrownBy(() -> client("console", "wrong").command("admin", ping())).isInstanceOfSatisfying(ClusterException.class,
                e -> assertThat(e.error().describe()).isEqualTo("AuthenticationFailed (18): Authentication failed."));

        assertThatThrownBy(() -> client(null, null).command("admin", ping())).isInstanceOf(ClusterException.class);
        assertThat(router.requests().getLast().authorization()).isNull();
    }

    @Test
    void credentialsGoTogetherAndThePasswordIsNeverPrinted() {
        assertThatThrownBy(() -> client("console", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("username console is set without password");
        String url = router.url();
        assertThat(new ConsoleProperties(List.of(url), url, url, url, url, null, Duration.ofSeconds(2), "console", "secret",
                Duration.ofSeconds(5)).toString()).contains("username=console", "password=******").doesNotContain("secret");
    }
}
