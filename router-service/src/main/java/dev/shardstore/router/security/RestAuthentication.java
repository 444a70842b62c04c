package dev.shardstore.router.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.router.audit.AuditLog;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.security.ActionType;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.Resource;
import dev.shardstore.support.security.ScramCredentials;
import dev.shardstore.support.security.ScramMechanism;
import dev.shardstore.support.security.UserName;
import dev.shardstore.support.web.Problems;
import dev.shardstore.support.web.RequestIdFilter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authentication on the router's REST API and Actuator when authorization is on (docs/architecture.md "Security";
 * README "Security"), against the same users as the wire protocol. A servlet filter on the JDK's PBKDF2 and HMAC
 * (Spring Security is not among the build's dependencies):
 *
 * <ul>
 *   <li>{@code Authorization: Basic base64(user:password)}, the user on {@code admin}, or {@code user@db} for another
 *       authentication database: the password is checked against the user's stored SCRAM-SHA-256 key (one PBKDF2 per
 *       request: clients that send many requests take a token);</li>
 *   <li>{@code POST /api/v1/auth/token} with Basic answers {@code {token, user, expiresAt}}: an opaque random token
 *       (32 bytes, base64url) valid for {@code shardstore.security.token-lifetime}, held by this router only;
 *       {@code Authorization: Bearer <token>} then stands for the user. A token dies with its expiry, a change of the
 *       user's password, or the user's drop (checked when the user cache generation moves on);</li>
 *   <li>no credentials: the request runs unauthenticated (the command is refused with Unauthorized (13), HTTP 403),
 *       or as the localhost exception from a loopback address while no user exists.</li>
 * </ul>
 * Wrong credentials are AuthenticationFailed (18), HTTP 401 with {@code WWW-Authenticate: Basic}. Actuator:
 * {@code health} is open; any other endpoint needs {@code serverStatus} on the cluster (role {@code clusterMonitor}),
 * and a write to one (a POST: {@code catalogEvents}) {@code flushRouterConfig} on the cluster (role
 * {@code clusterManager}). The principal travels as the request attribute {@link #PRINCIPAL}.
 */
public final class RestAuthentication extends OncePerRequestFilter {
    /** The request attribute holding the request's {@link Principal}. */
    public static final String PRINCIPAL = RestAuthentication.class.getName() + ".principal";
    /** The token endpoint. */
    public static final String TOKEN_PATH = "/api/v1/auth/token";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The audit log's {@code mechanism} of an HTTP Basic check and of a bearer token's. */
    private static final String BASIC = "HTTP-Basic";
    private static final String BEARER = "HTTP-Bearer";

    /** Registers the filter ahead of the command endpoint's, only when authorization is on. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "shardstore.security.authorization", havingValue = "enabled")
    static class Registration {
        @Bean
        FilterRegistrationBean<RestAuthentication> restAuthentication(UserDirectory directory, ClientSecurityProperties properties,
                AuditLog audit) {
            FilterRegistrationBean<RestAuthentication> registration =
                    new FilterRegistrationBean<>(new RestAuthentication(directory, properties, Clock.systemUTC(), audit));
            registration.addUrlPatterns("/v1/*", "/api/*", "/actuator/*");
            registration.setOrder(Ordered.LOWEST_PRECEDENCE - 1);
            return registration;
        }
    }

    /** A token: whose, until when, and the stored key it was issued under (a password change replaces it). */
    private record Token(UserName user, Instant expiresAt, byte[] storedKey, long checkedAt) {}

    private final UserDirectory directory;
    private final ClientSecurityProperties properties;
    private final Clock clock;
    private final Map<String, Token> tokens = new ConcurrentHashMap<>();
    private final AuditLog audit;

    /**
     * @param audit records the token requests and every failed authentication (a successful Basic or bearer check of
     *              an ordinary request is not an event: it would be one per request)
     */
    public RestAuthentication(UserDirectory directory, ClientSecurityProperties properties, Clock clock, AuditLog audit) {
        this.audit = audit;
        this.directory = directory;
        this.properties = properties;
        this.clock = clock;
    }

    /** The principal the filter put on {@code request}: nobody when it did not run (authorization off). */
    public static Principal principal(HttpServletRequest request) {
        return request.getAttribute(PRINCIPAL) instanceof Principal principal ? principal : Principal.NONE;
    }

    /**
     * The client's address and port as the servlet container saw them (for the audit log), unresolved: every REST
     * request passes it, and only an audited one reads it, as text.
     */
    public static InetSocketAddress remote(HttpServletRequest request) {
        return InetSocketAddress.createUnresolved(request.getRemoteAddr(), request.getRemotePort());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getServletPath();
        if (path.equals("/actuator/health") || path.startsWith("/actuator/health/")) {
            chain.doFilter(request, response);
            return;
        }
        Principal principal;
        try {
            if (path.equals(TOKEN_PATH) && "POST".equals(request.getMethod())) {
                writeToken(request, response);
                return;
            }
            principal = authenticate(request, loopback(request));
            if (path.startsWith("/actuator/")) {
                ActionType needed = "GET".equals(request.getMethod()) ? ActionType.serverStatus : ActionType.flushRouterConfig;
                if (!principal.isAuthorized(Resource.CLUSTER, needed)) {
                    throw new CommandException(ErrorCode.Unauthorized, "not authorized to use " + path + ": needs action " + needed
                            + " on cluster");
                }
            }
        } catch (CommandException e) {
            if (e.code() == ErrorCode.AuthenticationFailed) {
                response.setHeader("WWW-Authenticate", "Basic realm=\"shardstore\", charset=\"UTF-8\"");
            }
            Problems.write(response, Problems.of(e), RequestIdFilter.of(request));
            return;
        }
        request.setAttribute(PRINCIPAL, principal);
        chain.doFilter(request, response);
    }

    /** The principal of an {@code Authorization} header; nobody (or the localhost exception) without one. */
    private Principal authenticate(HttpServletRequest request, boolean loopback) {
        String authorization = request.getHeader("Authorization");
        if (authorization == null || authorization.isBlank()) {
            return loopback && !directory.anyUser() ? Principal.LOCALHOST_EXCEPTION : Principal.NONE;
        }
        if (authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return directory.principal(bearer(request, authorization.substring(7).trim()));
        }
        if (authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return directory.principal(basic(request, authorization.substring(6).trim()).user());
        }
        throw failed(request, null, "HTTP");
    }

    /** The user of a Basic header whose password matches the stored SCRAM-SHA-256 key, with that key. */
    private Token basic(HttpServletRequest request, String encoded) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw failed(request, null, BASIC);
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            throw failed(request, null, BASIC);
        }
        String name = decoded.substring(0, colon);
        int at = name.lastIndexOf('@');
        UserName user = at > 0 ? new UserName(name.substring(0, at), name.substring(at + 1)) : new UserName(name, "admin");
        ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_256;
        ScramCredentials stored = directory.credentials(user, mechanism).orElseThrow(() -> failed(request, user, BASIC));
        ScramCredentials given = ScramCredentials.derive(mechanism, mechanism.prepare(user.user(), decoded.substring(colon + 1)),
                stored.salt(), stored.iterationCount());
        if (!MessageDigest.isEqual(given.storedKey(), stored.storedKey())) {
            throw failed(request, user, BASIC);
        }
        return new Token(user, Instant.EPOCH, stored.storedKey(), directory.generation());
    }

    /** The user of a live token; checked against the user's stored key again once users changed. */
    private UserName bearer(HttpServletRequest request, String value) {
        Token token = tokens.get(value);
        if (token == null || !clock.instant().isBefore(token.expiresAt())) {
            tokens.remove(value);
            throw failed(request, token == null ? null : token.user(), BEARER);
        }
        if (token.checkedAt() != directory.generation()) {
            Optional<ScramCredentials> now = directory.credentials(token.user(), ScramMechanism.SCRAM_SHA_256);
            if (now.isEmpty() || !MessageDigest.isEqual(now.get().storedKey(), token.storedKey())) {
                tokens.remove(value);
                throw failed(request, token.user(), BEARER);
            }
            tokens.put(value, new Token(token.user(), token.expiresAt(), token.storedKey(), directory.generation()));
        }
        return token.user();
    }

    private void writeToken(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String header = request.getHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw new CommandException(ErrorCode.AuthenticationFailed, "a token is issued for HTTP Basic credentials only");
        }
        Token verified = basic(request, header.substring(6).trim());
        audit.authentication(remote(request), verified.user(), BASIC, 0);
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String value = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Instant expiresAt = clock.instant().plus(properties.tokenLifetime());
        tokens.put(value, new Token(verified.user(), expiresAt, verified.storedKey(), directory.generation()));
        tokens.values().removeIf(t -> !clock.instant().isBefore(t.expiresAt()));
        byte[] body = ("{\"token\": \"" + value + "\", \"user\": \"" + verified.user() + "\", \"expiresAt\": \""
                + expiresAt + "\"}").getBytes(StandardCharsets.UTF_8);
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static boolean loopback(HttpServletRequest request) {
        try {
            return InetAddress.getByName(request.getRemoteAddr()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** AuthenticationFailed (18), recorded in the audit log with the user it was for, when known. */
    private CommandException failed(HttpServletRequest request, @Nullable UserName user, String mechanism) {
        audit.authentication(remote(request), user, mechanism, ErrorCode.AuthenticationFailed.code());
        return new CommandException(ErrorCode.AuthenticationFailed, "Authentication failed.");
    }
}
