package dev.shardstore.router.api;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.security.RestAuthentication;
import dev.shardstore.support.web.Problems;
import dev.shardstore.support.web.RequestIdFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * Serves the common case of the client command endpoint, {@code POST /v1/databases/{db}/command} with a JSON body and a
 * reply the client accepts as JSON, without Spring MVC: the dispatcher's handler lookup, argument resolution and
 * message converters were about 15% of the router's CPU per routed point read over REST (docs/benchmarks.md, issue 10),
 * as they were on the shards' internal endpoint before it became a servlet. It answers exactly as
 * {@link CommandController} does — the reply in relaxed Extended JSON, a failure as the problem body of
 * {@link ProblemResponses} with the request id, the {@code http.server.requests} observation tagged with the
 * endpoint's pattern — and leaves every other request (another method, media type or {@code Accept}, another path) to
 * the controller and Spring MVC, which also document the endpoint (OpenAPI) and answer the refusals (405, 406, 415).
 * Runs after the request-id, body-size and observation filters.
 */
public final class CommandEndpointFilter extends OncePerRequestFilter {
    /** Registers the filter below the databases prefix, after every filter of the chain that Spring Boot orders. */
    @Configuration(proxyBeanMethods = false)
    static class Registration {
        @Bean
        FilterRegistrationBean<CommandEndpointFilter> commandEndpointFilter(ClientCommands commands) {
            FilterRegistrationBean<CommandEndpointFilter> registration = new FilterRegistrationBean<>(new CommandEndpointFilter(commands));
            registration.addUrlPatterns("/v1/databases/*");
            registration.setDispatcherTypes(DispatcherType.REQUEST);
            registration.setOrder(Ordered.LOWEST_PRECEDENCE);
            return registration;
        }
    }

    /** The endpoint's path pattern, as the controller maps it and as metrics tag it. */
    public static final String PATTERN = "/v1/databases/{db}/command";
    private static final String PREFIX = "/v1/databases/";
    private static final String SUFFIX = "/command";

    private final ClientCommands commands;

    public CommandEndpointFilter(ClientCommands commands) {
        this.commands = commands;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return database(request) == null || !"POST".equals(request.getMethod()) || !isJson(request.getContentType())
                || !acceptsJson(request.getHeader("Accept"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String db = Objects.requireNonNull(database(request), "shouldNotFilter lets only a request naming a database through");
        ServerHttpObservationFilter.findObservationContext(request).ifPresent(context -> context.setPathPattern(PATTERN));
        byte[] reply;
        try {
            String body = new String(request.getInputStream().readAllBytes(), charset(request.getContentType()));
            reply = ExtendedJson.toJson(commands.run(ClientCommands.Transport.REST, RestAuthentication.principal(request), RestAuthentication.remote(request), db,
                    ExtendedJson.parse(body)))
                    .getBytes(StandardCharsets.UTF_8);
        } catch (RuntimeException | Error thrown) {
            Problems.write(response, ProblemResponses.problem(thrown, request), RequestIdFilter.of(request));
            return;
        }
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.setContentLength(reply.length);
        response.getOutputStream().write(reply);
    }

    /** The {@code {db}} of a request for the command endpoint, or null for another path. */
    static @Nullable String database(HttpServletRequest request) {
        String path = request.getServletPath(); // decoded, as the controller's path variable is
        if (path == null || !path.startsWith(PREFIX) || !path.endsWith(SUFFIX) || path.length() <= PREFIX.length() + SUFFIX.length()) {
            return null;
        }
        String db = path.substring(PREFIX.length(), path.length() - SUFFIX.length());
        return db.indexOf('/') >= 0 ? null : db;
    }

    private static boolean isJson(@Nullable String contentType) {
        try {
            return contentType != null && MediaType.APPLICATION_JSON.includes(MediaType.parseMediaType(contentType));
        } catch (InvalidMediaTypeException e) {
            return false;
        }
    }

    private static boolean acceptsJson(@Nullable String accept) {
        if (accept == null || accept.isBlank()) {
            return true;
        }
        try {
            return MediaType.parseMediaTypes(accept).stream().anyMatch(type -> type.getQualityValue() > 0 && type.includes(MediaType.APPLICATION_JSON));
        } catch (InvalidMediaTypeException e) {
            return false;
        }
    }

    /** The body's charset: the content type's, UTF-8 by default (JSON's own encoding). */
    private static Charset charset(String contentType) {
        Charset charset = MediaType.parseMediaType(contentType).getCharset();
        return charset == null ? StandardCharsets.UTF_8 : charset;
    }
}
