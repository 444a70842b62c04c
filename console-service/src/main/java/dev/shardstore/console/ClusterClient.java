package dev.shardstore.console;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The console's only way into the cluster: the router's public command API ({@code POST /v1/databases/{db}/command},
 * Extended JSON; docs/architecture.md "The client API: REST and the wire protocol") and the services' Actuator endpoints
 * ({@code GET <service>/actuator/<id>}). No database access. Every request is bounded by
 * {@link ConsoleProperties#requestTimeout()}. Thread-safe.
 *
 * <p>With {@link ConsoleProperties#authenticates() credentials} every request carries them (docs/architecture.md
 * "Security", "Clients"): to the command router a bearer token it issued ({@code POST /api/v1/auth/token} with HTTP
 * Basic; taken again a minute before it expires, and once more when the router answers AuthenticationFailed (18) to it,
 * as after a router restart), so that the router checks the password once rather than at every request of every 2 s
 * update; to any other service, which holds no token of the router's, HTTP Basic. The password is never logged.
 */
@Component
public class ClusterClient {
    /** A cursor's batch: one {@code getMore} per 1000 documents (a collection of 10,000 chunks takes ten). */
    private static final int BATCH_SIZE = 1000;
    /** The router's token endpoint (router-service's {@code RestAuthentication.TOKEN_PATH}). */
    static final String TOKEN_PATH = "/api/v1/auth/token";
    /** How long before its expiry a token is replaced. */
    private static final Duration TOKEN_RENEWAL = Duration.ofMinutes(1);

    private final HttpClient http;
    private final String router;
    private final Duration timeout;
    private final Clock clock;
    /** {@code Basic base64(user:password)}, or null without credentials. */
    private final @Nullable String basic;
    /** The command router's token for this console and its expiry; guarded by {@code this}. */
    private @Nullable String token;
    private Instant tokenExpiresAt = Instant.EPOCH;

    public ClusterClient(ConsoleProperties properties, Clock clock) {
        this.http = HttpClient.newBuilder().connectTimeout(properties.requestTimeout()).build();
        this.router = properties.commandRouter();
        this.timeout = properties.requestTimeout();
        this.clock = clock;
        this.basic = properties.authenticates() ? "Basic " + Base64.getEncoder().encodeToString(
                (properties.username() + ":" + properties.password()).getBytes(StandardCharsets.UTF_8)) : null;
    }

    /**
     * Runs {@code command} on database {@code db} through the router.
     *
     * @return the reply, {@code ok: 1}
     * @throws ClusterException with the reply's {@code code}/{@code codeName}/{@code errmsg} when it is {@code ok: 0} (the
     *                          router's problem+json carries them), HostUnreachable (6) when the router does not answer,
     *                          NetworkTimeout (89) past the timeout
     */
    public BsonDocument command(String db, BsonDocument command) {
        String name = command.isEmpty() ? "command" : command.getFirstKey();
        String body = ExtendedJson.toJson(command);
        BsonDocument reply = toRouter(name, authorization -> builder(URI.create(router + "/v1/databases/" + db + "/command"), authorization)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build());
        if (!isOk(reply)) {
            throw new ClusterException(errorOf(name, reply));
        }
        return reply;
    }

    /**
     * Every document of {@code db.collection}'s aggregate {@code pipeline} ({@code collection} null for a database-level
     * aggregate, {@code aggregate: 1}, whose cursor is on {@code $cmd.aggregate}), through its cursor's {@code getMore}s.
     *
     * @throws ClusterException as {@link #command}
     */
    public List<BsonDocument> aggregate(String db, @Nullable String collection, List<BsonDocument> pipeline) {
        BsonValue target = collection == null ? new BsonInt32(1) : new BsonString(collection);
        BsonDocument command = new BsonDocument("aggregate", target)
                .append("pipeline", new BsonArray(pipeline))
                .append("cursor", new BsonDocument("batchSize", new BsonInt32(BATCH_SIZE)));
        return drain(db, collection == null ? "$cmd.aggregate" : collection, command(db, command));
    }

    /**
     * Every document {@code find} returns on {@code db.collection} for {@code filter}.
     *
     * @throws ClusterException as {@link #command}
     */
    public List<BsonDocument> find(String db, String collection, BsonDocument filter) {
        BsonDocument command = new BsonDocument("find", new BsonString(collection)).append("filter", filter)
                .append("batchSize", new BsonInt32(BATCH_SIZE));
        return drain(db, collection, command(db, command));
    }

    private List<BsonDocument> drain(String db, String collection, BsonDocument reply) {
        List<BsonDocument> out = new ArrayList<>();
        BsonDocument cursor = reply.getDocument("cursor");
        cursor.getArray("firstBatch").forEach(v -> out.add(v.asDocument()));
        long id = cursor.getNumber("id").longValue();
        while (id != 0) {
            cursor = command(db, new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString(collection))
                    .append("batchSize", new BsonInt32(BATCH_SIZE))).getDocument("cursor");
            cursor.getArray("nextBatch").forEach(v -> out.add(v.asDocument()));
            id = cursor.getNumber("id").longValue();
        }
        return out;
    }

    /**
     * {@code GET <serviceUrl>/actuator/<path>} as a document (Actuator answers JSON; its health answers 503 with a body
     * when the service is down, which is returned as it is).
     *
     * @throws ClusterException HostUnreachable (6) when the service does not answer, NetworkTimeout (89) past the
     *                          timeout, FailedToParse (9) for a body that is not a JSON object
     */
    public BsonDocument actuator(String serviceUrl, String path) {
        String source = serviceUrl + "/actuator/" + path;
        if (serviceUrl.equals(router)) {
            return toRouter(source, authorization -> builder(URI.create(source), authorization).GET().build());
        }
        return send(source, builder(URI.create(source), basic).GET().build());
    }

    /**
     * {@code GET <serviceUrl>/actuator/<path>} as text (Prometheus's text format), with the credentials as
     * {@link #actuator}.
     *
     * @throws ClusterException HostUnreachable (6), NetworkTimeout (89) as {@link #actuator}; the service's error (a
     *                          problem body's code, e.g. Unauthorized 13) for a status other than 200
     */
    public String actuatorText(String serviceUrl, String path) {
        String source = serviceUrl + "/actuator/" + path;
        HttpResponse<String> response = exchange(source, builder(URI.create(source),
                serviceUrl.equals(router) ? routerAuthorization() : basic).setHeader("Accept", "text/plain").GET().build());
        if (response.statusCode() != 200) {
            throw new ClusterException(errorOf(source, parseOrWrap(source, response)));
        }
        return response.body();
    }

    private HttpRequest.Builder builder(URI uri, @Nullable String authorization) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json");
        return authorization == null ? builder : builder.header("Authorization", authorization);
    }

    /** Sends a request to the command router with its token; once again with a new token when the router refused it (18). */
    private BsonDocument toRouter(String source, java.util.function.Function<@Nullable String, HttpRequest> request) {
        String used = routerAuthorization();
        BsonDocument reply = send(source, request.apply(used));
        if (used != null && !isOk(reply) && reply.isNumber("code")
                && reply.getNumber("code").intValue() == ErrorCode.AuthenticationFailed.code()) {
            forgetToken(used);
            reply = send(source, request.apply(routerAuthorization()));
        }
        return reply;
    }

    /** {@code Bearer <token>} for the command router, taking a token when there is none or it is about to expire; null without credentials. */
    private synchronized @Nullable String routerAuthorization() {
        if (basic == null) {
            return null;
        }
        if (token == null || !clock.instant().isBefore(tokenExpiresAt.minus(TOKEN_RENEWAL))) {
            String source = router + TOKEN_PATH;
            BsonDocument reply = send(source, builder(URI.create(source), basic).POST(HttpRequest.BodyPublishers.noBody()).build());
            if (!reply.isString("token") || !reply.isString("expiresAt")) {
                throw new ClusterException(errorOf(source, reply));
            }
            try {
                tokenExpiresAt = Instant.parse(reply.getString("expiresAt").getValue());
            } catch (DateTimeParseException e) {
                throw new ClusterException(new ClusterError(source, ErrorCode.FailedToParse.code(), ErrorCode.FailedToParse.codeName(),
                        "the token's expiresAt is not an instant: " + reply.getString("expiresAt").getValue()));
            }
            token = reply.getString("token").getValue();
        }
        return "Bearer " + token;
    }

    private synchronized void forgetToken(String used) {
        if (used.equals("Bearer " + token)) {
            token = null;
        }
    }

    private BsonDocument send(String source, HttpRequest request) {
        return parseOrWrap(source, exchange(source, request));
    }

    private HttpResponse<String> exchange(String source, HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new ClusterException(new ClusterError(source, ErrorCode.NetworkTimeout.code(), ErrorCode.NetworkTimeout.codeName(),
                    request.uri().getAuthority() + " did not answer within " + timeout.toMillis() + " ms"));
        } catch (IOException e) {
            throw new ClusterException(new ClusterError(source, ErrorCode.HostUnreachable.code(), ErrorCode.HostUnreachable.codeName(),
                    request.uri().getAuthority() + (e instanceof java.net.ConnectException ? " refused the connection" : " is unreachable: the connection failed")));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterException(new ClusterError(source, ErrorCode.Interrupted.code(), ErrorCode.Interrupted.codeName(), "interrupted"));
        }
    }

    /** The response's body as a document. */
    private static BsonDocument parseOrWrap(String source, HttpResponse<String> response) {
        try {
            return ExtendedJson.parse(response.body());
        } catch (CommandException e) {
            throw new ClusterException(new ClusterError(source, e.code().code(), e.code().codeName(),
                    "HTTP " + response.statusCode() + " without a JSON object: " + e.getMessage()));
        }
    }

    /** Whether {@code reply} says {@code ok: 1}. */
    static boolean isOk(BsonDocument reply) {
        BsonValue ok = reply.get("ok");
        return ok != null && ok.isNumber() && ok.asNumber().doubleValue() == 1.0;
    }

    /** The error an {@code ok: 0} reply carries; InternalError (1) for the parts it lacks. */
    static ClusterError errorOf(String source, BsonDocument reply) {
        int code = reply.isNumber("code") ? reply.getNumber("code").intValue() : ErrorCode.InternalError.code();
        String codeName = reply.isString("codeName") ? reply.getString("codeName").getValue() : ErrorCode.ofNumber(code).codeName();
        String message = reply.isString("errmsg") ? reply.getString("errmsg").getValue() : reply.toJson();
        return new ClusterError(source, code, codeName, message);
    }
}
