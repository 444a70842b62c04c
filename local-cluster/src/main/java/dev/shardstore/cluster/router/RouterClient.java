package dev.shardstore.cluster.router;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Runs commands through a router's client API: {@code POST {router}/v1/databases/{db}/command} with a
 * command document as relaxed Extended JSON, answered by a reply document (docs/architecture.md "The client API: REST and the wire protocol"). Error
 * replies ({@code ok: 0}, also when sent as an HTTP 4xx/5xx problem body) are returned, not thrown;
 * {@link #requireOk} turns them into a {@link RouterException}. Thread-safe.
 */
public final class RouterClient {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final URI base;
    private final HttpClient http;
    private final Duration requestTimeout;
    /** The {@code Authorization} header's value, or null for an unauthenticated client. */
    private final @Nullable String authorization;

    /**
     * @param routerUrl      e.g. {@code http://localhost:8080}
     * @param requestTimeout how long one command may take
     */
    public RouterClient(String routerUrl, Duration requestTimeout) {
        this(routerUrl, requestTimeout, null, null);
    }

    /**
     * A client authenticating with HTTP Basic as {@code user} (on {@code admin}) when both are given
     * (docs/architecture.md "Security").
     */
    public RouterClient(String routerUrl, Duration requestTimeout, @Nullable String user, @Nullable String password) {
        this(URI.create(routerUrl.endsWith("/") ? routerUrl.substring(0, routerUrl.length() - 1) : routerUrl),
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT).build(), requestTimeout,
                user == null || password == null ? null
                        : "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    private RouterClient(URI base, HttpClient http, Duration requestTimeout, @Nullable String authorization) {
        this.base = base;
        this.http = http;
        this.requestTimeout = requestTimeout;
        this.authorization = authorization;
    }

    /**
     * A client of the same router that sends a bearer token taken now with this client's Basic credentials
     * ({@code POST /api/v1/auth/token}, docs/architecture.md "Security"): the router checks a Basic password with a
     * PBKDF2 per request, a token with a lookup, so a client that sends many requests takes one. This client itself
     * when it has no credentials.
     *
     * @throws RouterException when the router is unreachable or refuses the credentials
     */
    public RouterClient withToken() {
        if (authorization == null) {
            return this;
        }
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/api/v1/auth/token")).timeout(requestTimeout)
                .header("Authorization", authorization).header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        String token = http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((response, failure) -> {
            if (failure != null) {
                throw transportFailure("a token", failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
            }
            BsonDocument body = parseReply("a token", response);
            if (response.statusCode() != 200 || !body.isString("token")) {
                throw new RouterException("router at " + base + " refused a token (HTTP " + response.statusCode() + "): " + body.toJson());
            }
            return body.getString("token").getValue();
        }).join();
        return new RouterClient(base, http, requestTimeout, "Bearer " + token);
    }

    /** The router's base URL. */
    public String url() {
        return base.toString();
    }

    /**
     * Runs {@code command} on database {@code db} and returns the reply.
     *
     * @throws RouterException when the router is unreachable, times out, or does not answer with a document
     */
    public BsonDocument run(String db, BsonDocument command) {
        try {
            return runAsync(db, command.getFirstKey(), ExtendedJson.toJson(command).getBytes(StandardCharsets.UTF_8)).join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw cause instanceof RouterException re ? re : new RouterException(cause.toString(), cause);
        }
    }

    /**
     * Sends a command already serialised as JSON.
     *
     * @param commandName for error messages, e.g. {@code insert}
     * @return the reply; fails with a {@link RouterException} as {@link #run} would throw it
     */
    public CompletableFuture<BsonDocument> runAsync(String db, String commandName, byte[] jsonCommand) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve("/v1/databases/" + db + "/command"))
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(jsonCommand));
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        HttpRequest request = builder.build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .handle((response, failure) -> {
                    if (failure != null) {
                        throw transportFailure(commandName,
                                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
                    }
                    return parseReply(commandName, response);
                });
    }

    /**
     * Returns {@code reply} if it says {@code ok: 1}.
     *
     * @throws RouterException carrying the reply's {@code errmsg}, {@code codeName} and {@code code}
     */
    public static BsonDocument requireOk(String what, BsonDocument reply) {
        if (isOk(reply)) {
            return reply;
        }
        throw new RouterException(what + " failed: " + describeError(reply));
    }

    /** Whether {@code reply} says {@code ok: 1}. */
    public static boolean isOk(BsonDocument reply) {
        BsonValue ok = reply.get("ok");
        return ok != null && ok.isNumber() && ok.asNumber().doubleValue() == 1.0;
    }

    /** {@code errmsg (codeName, code N)} of an error reply. */
    public static String describeError(BsonDocument reply) {
        String message = reply.isString("errmsg") ? reply.getString("errmsg").getValue() : reply.toJson();
        List<String> codes = new ArrayList<>();
        if (reply.isString("codeName")) {
            codes.add(reply.getString("codeName").getValue());
        }
        if (reply.isNumber("code")) {
            codes.add("code " + reply.getNumber("code").intValue());
        }
        return codes.isEmpty() ? message : message + " (" + String.join(", ", codes) + ")";
    }

    private BsonDocument parseReply(String commandName, HttpResponse<String> response) {
        try {
            return ExtendedJson.parse(response.body());
        } catch (CommandException e) {
            String body = response.body().strip();
            throw new RouterException("router at " + base + " answered HTTP " + response.statusCode() + " to " + commandName
                    + " with something that is not a command reply: " + (body.length() > 300 ? body.substring(0, 300) + "…" : body));
        }
    }

    private RouterException transportFailure(String commandName, Throwable failure) {
        if (failure instanceof ConnectException) {
            return new RouterException("router at " + base + " is unreachable (connection refused); is the cluster up? (./cluster status)", failure);
        }
        if (failure instanceof HttpTimeoutException) {
            return new RouterException("router at " + base + " did not answer " + commandName + " within " + requestTimeout.toSeconds() + " s", failure);
        }
        if (failure instanceof IOException) {
            return new RouterException("router at " + base + " failed during " + commandName + ": " + failure, failure);
        }
        return new RouterException("sending " + commandName + " to " + base + " failed: " + failure, failure);
    }
}
