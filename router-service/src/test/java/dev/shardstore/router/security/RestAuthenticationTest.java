package dev.shardstore.router.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.router.audit.AuditEvent;
import dev.shardstore.router.audit.AuditLog;
import dev.shardstore.router.audit.AuditProperties;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.Principal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** HTTP Basic, bearer tokens and the Actuator rule of the REST front end, over {@link InMemoryUsers}. */
class RestAuthenticationTest {
    private final InMemoryUsers users = new InMemoryUsers();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    private final AuditLog audit = new AuditLog(AuditProperties.DEFAULTS, Clock.systemUTC());

    /** The request's outcome: the response, and the principal the next filter saw (null when the chain stopped). */
    private record Outcome(MockHttpServletResponse response, Principal principal) {}

    private Outcome send(RestAuthentication filter, String method, String path, String authorization, String remote) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest(method, path);
        request.setServletPath(path);
        request.setRemoteAddr(remote);
        if (authorization != null) {
            request.addHeader("Authorization", authorization);
        }
        MockHttpServletResponse response = new MockHttpServletResponse();
        AtomicReference<Principal> seen = new AtomicReference<>();
        filter.doFilter(request, response, (req, res) -> seen.set(RestAuthentication.principal((jakarta.servlet.http.HttpServletRequest) req)));
        return new Outcome(response, seen.get());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private RestAuthentication filter(UserDirectory directory) {
        return new RestAuthentication(directory, new ClientSecurityProperties(ClientSecurityProperties.Mode.enabled, Duration.ofHours(1),
                Duration.ofMinutes(10)), clock, audit);
    }

    @Test
    void basicAuthenticatesAgainstTheStoredScramKey() throws Exception {
        users.add("alice", "pw", "readWrite", "shop");
        RestAuthentication filter = filter(users.directory());
        Outcome ok = send(filter, "POST", "/v1/databases/shop/command", basic("alice", "pw"), "10.0.0.5");
        assertThat(ok.principal().users()).extracting(Object::toString).containsExactly("alice@admin");

        Outcome wrong = send(filter, "POST", "/v1/databases/shop/command", basic("alice", "nope"), "10.0.0.5");
        assertThat(wrong.principal()).isNull();
        assertThat(wrong.response().getStatus()).isEqualTo(401);
        assertThat(wrong.response().getHeader("WWW-Authenticate")).startsWith("Basic");
        assertThat(ExtendedJson.parse(wrong.response().getContentAsString()).getInt32("code").getValue()).isEqualTo(18);

        Outcome anonymous = send(filter, "POST", "/v1/databases/shop/command", null, "10.0.0.5");
        assertThat(anonymous.principal()).isEqualTo(Principal.NONE);

        assertThat(audit.recent()).as("the failure only: a request's successful Basic check is not an event").singleElement()
                .satisfies(event -> {
                    assertThat(event.atype()).isEqualTo("authenticate");
                    assertThat(event.result()).isEqualTo(18);
                    assertThat(event.toBson().getDocument("remote").getString("ip").getValue()).isEqualTo("10.0.0.5");
                    assertThat(event.param().toJson()).contains("\"user\": \"alice\"", "\"mechanism\": \"HTTP-Basic\"").doesNotContain("nope");
                });
    }

    @Test
    void aTokenStandsForItsUserUntilItExpiresOrThePasswordChanges() throws Exception {
        users.add("bob", "pw", "read", "shop");
        UserDirectory directory = users.directory();
        RestAuthentication filter = filter(directory);
        Outcome issued = send(filter, "POST", RestAuthentication.TOKEN_PATH, basic("bob", "pw"), "10.0.0.5");
        assertThat(issued.response().getStatus()).isEqualTo(200);
        String token = ExtendedJson.parse(issued.response().getContentAsString()).getString("token").getValue();
        assertThat(audit.recent()).singleElement().satisfies(event -> {
            assertThat(event.result()).isZero();
            assertThat(event.users()).extracting(Object::toString).containsExactly("bob@admin");
        });

        assertThat(send(filter, "GET", "/v1/databases/shop/collections/c", "Bearer " + token, "10.0.0.5").principal().users()).hasSize(1);
        users.add("bob", "new-pw", "read", "shop");
        directory.refresh();
        assertThat(send(filter, "GET", "/v1/databases/shop/collections/c", "Bearer " + token, "10.0.0.5").response().getStatus()).isEqualTo(401);

        String second = ExtendedJson.parse(send(filter, "POST", RestAuthentication.TOKEN_PATH, basic("bob", "new-pw"), "10.0.0.5")
                .response().getContentAsString()).getString("token").getValue();
        now.set(now.get().plus(Duration.ofMinutes(11)));
        assertThat(send(filter, "GET", "/v1/databases/shop/collections/c", "Bearer " + second, "10.0.0.5").response().getStatus()).isEqualTo(401);
        assertThat(audit.recent()).extracting(AuditEvent::result).containsExactly(0, 18, 0, 18);
        assertThat(audit.recent().get(1).param().getString("mechanism").getValue()).isEqualTo("HTTP-Bearer");
    }

    @Test
    void actuatorHealthIsOpenTheRestNeedsClusterMonitorAndTheLocalhostException() throws Exception {
        users.add("reader", "pw", "read", "shop");
        users.add("monitor", "pw", "clusterMonitor", "admin");
        RestAuthentication filter = filter(users.directory());
        assertThat(send(filter, "GET", "/actuator/health", null, "10.0.0.5").response().getStatus()).isEqualTo(200);
        assertThat(send(filter, "GET", "/actuator/metrics", basic("reader", "pw"), "10.0.0.5").response().getStatus()).isEqualTo(403);
        assertThat(send(filter, "GET", "/actuator/metrics", basic("monitor", "pw"), "10.0.0.5").principal()).isNotNull();
        assertThat(send(filter, "POST", "/actuator/catalogEvents", basic("monitor", "pw"), "10.0.0.5").response().getStatus()).isEqualTo(403);

        UserDirectory empty = new InMemoryUsers().directory();
        assertThat(send(filter(empty), "POST", "/v1/databases/admin/command", null, "127.0.0.1").principal())
                .isEqualTo(Principal.LOCALHOST_EXCEPTION);
        assertThat(send(filter(empty), "POST", "/v1/databases/admin/command", null, "10.0.0.5").principal()).isEqualTo(Principal.NONE);
    }
}
