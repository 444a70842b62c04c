package dev.shardstore.cluster.router;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Runs commands through a router's client API: {@code POST {router}/v1/databases/{db}/command} with a
 * command document as relaxed Extended JSON, answered by a reply document (docs/architecture.md "The client API: REST and the wire protocol"). Error
 * replies ({@code ok: 0}, also when sent as an HTTP 4xx/5xx problem body) are returned, not thrown;
 * {@link #requireOk} turns them into a {@link RouterException}. Thread-safe.
 *
 * <p>Transport: Apache HttpClient 5's classic (blocking) client over a pool of keep-alive HTTP/1.1 connections, the
 * exchange on the calling thread, as the services' own {@code CommandClient} sends commands. The JDK's
 * {@code HttpClient} it replaced handed every request to its selector thread and every reply to an executor thread
 * and back: the YCSB REST binding spent 430 µs of CPU per point read in it against 96 µs for the MongoDB driver's
 * (docs/benchmarks.md "Round 27"). Nothing is retried: a command may not be idempotent.
 *
 * <p>{@link #run} blocks its thread in a socket read that the fork-join pool cannot see: commands run side by side need
 * threads of their own (a virtual thread each, as {@link #runAsync} takes), never {@code CompletableFuture}'s default
 * pool, which on a 2-core machine runs one task at a time.
 */
public final class RouterClient {
    private static final Timeout CONNECT_TIMEOUT = Timeout.ofSeconds(5);
    /** More than any caller of this client runs at once (YCSB's threads, the loader's batches in flight). */
    private static final int MAX_CONNECTIONS = 256;
    /** A pooled connection idle this long is checked before reuse, so a POST never goes out on one the router closed. */
    private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofSeconds(1);
    private static final ContentType JSON = ContentType.APPLICATION_JSON;
    /** Runs {@link #runAsync}'s exchanges: one virtual thread each, blocked on its socket. */
    private static final Executor ASYNC = Executors.newVirtualThreadPerTaskExecutor();

    private final URI base;
    private final CloseableHttpClient http;
    private final Duration requestTimeout;
    /** The {@code Authorization} header's value, or null for an unauthenticated client. */
    private final @Nullable String authorization;
    /** How long a command waits for a pooled connection and for its reply. */
    private final RequestConfig requestConfig;

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
                pooledClient(requestTimeout), requestTimeout,
                user == null || password == null ? null
                        : "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    private RouterClient(URI base, CloseableHttpClient http, Duration requestTimeout, @Nullable String authorization) {
        this.base = base;
        this.http = http;
        this.requestTimeout = requestTimeout;
        this.authorization = authorization;
        this.requestConfig = RequestConfig.custom().setConnectionRequestTimeout(CONNECT_TIMEOUT).setResponseTimeout(Timeout.of(requestTimeout)).build();
    }

    /**
     * Apache's minimal client: the exchange without the protocol chain (redirects, cookies, authentication caches,
     * compression, retries), none of which a command needs: 18 of the 128 µs of CPU the YCSB binding spent per point read.
     */
    private static CloseableHttpClient pooledClient(Duration requestTimeout) {
        return HttpClients.createMinimal(PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(MAX_CONNECTIONS)
                .setMaxConnTotal(MAX_CONNECTIONS)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(CONNECT_TIMEOUT)
                        .setSocketTimeout(Timeout.of(requestTimeout))
                        .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                        .build())
                .build());
    }

    /**
     * A client of the same router that sends a bearer token taken now with this client's Basic credentials
     * ({@code POST /api/v1/auth/token}, docs/architecture.md "Security"): the router checks a Basic password with a
     * PBKDF2 per request, a token with a lookup, so a client that sends many requests takes one. This client itself
     * when it has no credentials. The two share their connections.
     *
     * @throws RouterException when the router is unreachable or refuses the credentials
     */
    public RouterClient withToken() {
        if (authorization == null) {
            return this;
        }
        Reply reply = exchange("/api/v1/auth/token", "a token", null);
        BsonDocument body = parseReply("a token", reply);
        if (reply.status() != 200 || !body.isString("token")) {
            throw new RouterException("router at " + base + " refused a token (HTTP " + reply.status() + "): " + body.toJson());
        }
        return new RouterClient(base, http, requestTimeout, "Bearer " + body.getString("token").getValue());
    }

    /** The router's base URL. */
    public String url() {
        return base.toString();
    }

    /**
     * Runs {@code command} on database {@code db} and returns the reply, on the calling thread.
     *
     * @throws RouterException when the router is unreachable, times out, or does not answer with a document
     */
    public BsonDocument run(String db, BsonDocument command) {
        return send(db, command.getFirstKey(), ExtendedJson.toJson(command).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends a command already serialised as JSON, on a virtual thread of its own.
     *
     * @param commandName for error messages, e.g. {@code insert}
     * @return the reply; fails with a {@link RouterException} as {@link #run} would throw it
     */
    public CompletableFuture<BsonDocument> runAsync(String db, String commandName, byte[] jsonCommand) {
        return CompletableFuture.supplyAsync(() -> send(db, commandName, jsonCommand), ASYNC);
    }

    private BsonDocument send(String db, String commandName, byte[] jsonCommand) {
        return parseReply(commandName, exchange("/v1/databases/" + db + "/command", commandName, jsonCommand));
    }

    /** An HTTP reply: its status and its body as text (UTF-8, JSON's encoding). */
    private record Reply(int status, String body) {}

    /** One POST to {@code path} with {@code json} as the body (none when null), with this client's credentials. */
    private Reply exchange(String path, String commandName, byte @Nullable [] json) {
        HttpPost post = new HttpPost(base.resolve(path));
        post.setConfig(requestConfig);
        post.setHeader(HttpHeaders.ACCEPT, JSON.getMimeType());
        if (authorization != null) {
            post.setHeader(HttpHeaders.AUTHORIZATION, authorization);
        }
        if (json != null) {
            post.setEntity(new ByteArrayEntity(json, JSON));
        }
        try {
            return http.execute(post, response -> new Reply(response.getCode(),
                    response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)));
        } catch (ConnectTimeoutException e) {
            throw new RouterException("router at " + base + " did not accept a connection within " + CONNECT_TIMEOUT.toSeconds() + " s", e);
        } catch (SocketTimeoutException e) {
            throw new RouterException("router at " + base + " did not answer " + commandName + " within " + requestTimeout.toSeconds() + " s", e);
        } catch (ConnectException e) {
            throw new RouterException("router at " + base + " is unreachable (connection refused); is the cluster up? (./cluster status)", e);
        } catch (InterruptedIOException e) {
            throw new RouterException("sending " + commandName + " to " + base + " was interrupted or found no free connection: " + e, e);
        } catch (IOException e) {
            throw new RouterException("router at " + base + " failed during " + commandName + ": " + e, e);
        }
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

    private BsonDocument parseReply(String commandName, Reply reply) {
        try {
            return ExtendedJson.parse(reply.body());
        } catch (CommandException e) {
            String body = reply.body().strip();
            throw new RouterException("router at " + base + " answered HTTP " + reply.status() + " to " + commandName
                    + " with something that is not a command reply: " + (body.length() > 300 ? body.substring(0, 300) + "…" : body));
        }
    }
}
