package dev.shardstore.transport.http;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.transport.membership.ClusterKey;
import dev.shardstore.transport.membership.MemberToken;
import dev.shardstore.transport.wire.MalformedMessageException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.SocketTimeoutException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.bson.BSONException;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * Sends command documents to a peer service per {@link InternalApi} and returns its reply
 * document, which may be an error reply ({@code ok: 0}) for the caller to act on.
 *
 * <p>Transport: Apache HttpClient 5's classic (blocking) client over a pool of keep-alive HTTP/1.1
 * connections, one round trip per call, the BSON request written as the body and the reply read on the
 * calling thread. Blocking suits the services' virtual threads and, unlike the JDK {@code HttpClient},
 * hands no request to a selector thread and back (the profile of issue 10 showed those hand-offs and
 * wake-ups as most of the router's CPU per point read). Nothing is retried here: a command may not be
 * idempotent, so retrying is the caller's decision.
 *
 * <p>Transport failures never hang and never pass silently: a refused or reset connection, a peer that
 * closes the connection or ends the body early is {@code HostUnreachable} (6); a connect timeout, a reply
 * that stays silent longer than the request timeout, or no free pooled connection within the connect
 * timeout is {@code NetworkTimeout} (89); a non-200 status or a body that is not one BSON document is
 * {@code HostUnreachable} naming the peer. A failed exchange never returns its connection to the pool.
 * Thread-safe; {@link #close} releases the pooled connections.
 *
 * <p>Wire protocol: a peer whose HTTP replies name a command port ({@link InternalApi#COMMAND_PORT_HEADER}) gets its
 * later commands there as OP_MSG messages over pooled connections ({@link WireCommandChannel}), which costs both sides
 * far less CPU per command than HTTP. Failures map to the same codes as over HTTP; a refused command port sends that
 * command over HTTP (it was never sent), and after any transport failure the peer's commands go over HTTP again until
 * a reply names the port anew — so a peer restarted without its listener, or on another port, is still reached.
 *
 * <p>Inside the cluster every request carries the process's cluster time and every reply's moves its clock
 * ({@link ClusterTimeGossip}, the only gossip hook of the transport).
 *
 * <p>Membership: a client given the cluster's {@link ClusterKey} proves it on every call, over HTTP with a
 * {@link MemberToken} in {@link InternalApi#MEMBER_TOKEN_HEADER}, over the command port with the
 * {@link dev.shardstore.transport.membership.MemberHandshake} once per connection; a peer that refuses the proof answers
 * Unauthorized (13), which is returned as its reply (HTTP) or thrown (command port). Without a key it sends no proof,
 * as a cluster without one expects.
 */
public final class CommandClient implements AutoCloseable {
    /**
     * Pooled connections per peer: more than any one service's concurrent calls to a peer in the local
     * cluster; callers bound their own concurrency.
     */
    static final int MAX_CONNECTIONS_PER_PEER = 256;
    /**
     * A pooled connection idle this long is checked before reuse: it may have been closed by the peer
     * (Tomcat closes keep-alive connections idle for its {@code keepAliveTimeout}, 60 s by default).
     */
    private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofSeconds(2);

    private static final ContentType BSON = ContentType.create(InternalApi.MEDIA_TYPE_BSON);

    private final PoolingHttpClientConnectionManager pool;
    private final CloseableHttpClient http;
    private final Duration requestTimeout;
    private final @Nullable ClusterTimeGossip gossip;
    private final Duration connectTimeout;
    private final LongSupplier nanoTicker;
    private final @Nullable ClusterKey clusterKey;
    private final @Nullable MemberToken memberToken;
    /** The wire channel of each peer (by base URL) that named its command port. */
    private final Map<String, WireCommandChannel> channels = new ConcurrentHashMap<>();

    /**
     * A client outside the cluster's time line (a command-line tool): it gossips no cluster time.
     *
     * @param connectTimeout how long to wait for a TCP connection (and for a free pooled one)
     * @param requestTimeout how long a reply may stay silent: the longest wait for its first byte, and
     *                       between two reads of its body
     */
    public CommandClient(Duration connectTimeout, Duration requestTimeout) {
        this(connectTimeout, requestTimeout, null);
    }

    /**
     * A service's peer client: requests carry the process's cluster time, replies advance its clock.
     *
     * @param gossip the process's gossip hook; null for none
     */
    public CommandClient(Duration connectTimeout, Duration requestTimeout, @Nullable ClusterTimeGossip gossip) {
        this(connectTimeout, requestTimeout, gossip, null);
    }

    /**
     * A client that proves cluster membership with {@code clusterKey} on every call.
     *
     * @param gossip     the process's gossip hook; null for none (a command-line tool)
     * @param clusterKey the cluster's key; null in a cluster without one
     */
    public CommandClient(Duration connectTimeout, Duration requestTimeout, @Nullable ClusterTimeGossip gossip, @Nullable ClusterKey clusterKey) {
        this(connectTimeout, requestTimeout, gossip, clusterKey, System::nanoTime);
    }

    /**
     * @param nanoTicker what the command port's idle connections are timed on ({@link System#nanoTime} but in tests,
     *                   which move it past {@link WireCommandChannel#CHECK_AFTER_IDLE_NANOS} instead of waiting)
     */
    CommandClient(Duration connectTimeout, Duration requestTimeout, @Nullable ClusterTimeGossip gossip, @Nullable ClusterKey clusterKey,
            LongSupplier nanoTicker) {
        this.nanoTicker = nanoTicker;
        this.clusterKey = clusterKey;
        this.memberToken = clusterKey == null ? null : new MemberToken(clusterKey, Clock.systemUTC());
        this.gossip = gossip;
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.connectTimeout = connectTimeout;
        Timeout connect = Timeout.of(Objects.requireNonNull(connectTimeout, "connectTimeout"));
        Timeout silence = Timeout.of(requestTimeout);
        this.pool = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(MAX_CONNECTIONS_PER_PEER)
                .setMaxConnTotal(4 * MAX_CONNECTIONS_PER_PEER)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(connect)
                        .setSocketTimeout(silence)
                        .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                        .build())
                .build();
        this.http = HttpClients.custom()
                .setConnectionManager(pool)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(connect)
                        .setResponseTimeout(silence)
                        .build())
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .build();
    }

    /**
     * Runs {@code command} against database {@code db} on the peer at {@code baseUrl}: the request
     * document goes out as BSON, the reply document comes back decoded.
     *
     * @param peerName names the peer in error messages (a shard id or "config")
     * @throws CommandException HostUnreachable or NetworkTimeout when the peer did not answer
     */
    public BsonDocument run(String peerName, String baseUrl, String db, BsonDocument command) {
        return run(peerName, baseUrl, db, command, false);
    }

    /**
     * {@link #run} for a reply that is passed on rather than read: the documents of its {@code cursor.firstBatch} or
     * {@code nextBatch} stay {@link org.bson.RawBsonDocument}s ({@link BsonBytes#decodeKeepingBatches}: immutable, read
     * lazily, written back as their bytes); the rest of the reply is decoded and mutable as with {@link #run}. For a
     * caller that neither changes those documents nor reads them much (the router forwarding one shard's find reply).
     */
    public BsonDocument runForwarding(String peerName, String baseUrl, String db, BsonDocument command) {
        return run(peerName, baseUrl, db, command, true);
    }

    private BsonDocument run(String peerName, String baseUrl, String db, BsonDocument command, boolean keepBatches) {
        BsonDocument sent = gossip == null ? command : gossip.outgoing(command);
        // a command that names another database in $db goes over HTTP, where the path's database and the field both reach
        // the peer, which refuses the mismatch; OP_MSG has room for one database only
        WireCommandChannel channel = sent.containsKey("$db") ? null : channels.get(baseUrl);
        BsonDocument reply = channel == null ? null : blocking(() -> overWire(channel, peerName, baseUrl, db, sent, keepBatches), peerName);
        if (reply == null) {
            reply = overHttp(peerName, baseUrl, db, sent, keepBatches);
        }
        if (gossip != null) {
            gossip.fromReply(reply);
        }
        return reply;
    }

    private BsonDocument overHttp(String peerName, String baseUrl, String db, BsonDocument sent, boolean keepBatches) {
        byte[] bytes = blocking(() -> exchange(peerName, baseUrl, InternalApi.commandPath(db), sent.getFirstKey(), BsonBytes.encode(sent)), peerName);
        try {
            return keepBatches ? BsonBytes.decodeKeepingBatches(ByteBuffer.wrap(bytes)) : BsonBytes.decode(bytes);
        } catch (BSONException | IndexOutOfBoundsException | BufferUnderflowException e) {
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " sent an unreadable reply to "
                    + sent.getFirstKey() + " (" + bytes.length + " bytes that are not one BSON document)", e);
        }
    }

    /**
     * One exchange over the peer's wire channel; any transport failure drops the channel (HTTP until re-learned).
     *
     * @return the reply, or null when the command port refused the connection: the command was not sent, so it goes
     *         over HTTP instead (a peer whose listener is gone still answers)
     */
    private @Nullable BsonDocument overWire(WireCommandChannel channel, String peerName, String baseUrl, String db, BsonDocument sent,
            boolean keepBatches) {
        try {
            return channel.exchange(db, sent, keepBatches);
        } catch (IOException | MalformedMessageException e) {
            String commandName = sent.getFirstKey();
            String peer = peerName + " at " + baseUrl + " (command port " + channel.address() + ")";
            if (channels.remove(baseUrl, channel)) {
                channel.close();
            }
            if (e instanceof ConnectException) {
                return null;
            }
            throw switch (e) {
                case SocketTimeoutException silent -> new CommandException(ErrorCode.NetworkTimeout,
                        peer + " did not answer " + commandName + " within " + requestTimeout.toMillis() + " ms", silent);
                case MalformedMessageException malformed -> new CommandException(ErrorCode.HostUnreachable,
                        peer + " sent an unreadable reply to " + commandName + ": " + malformed.getMessage(), malformed);
                default -> new CommandException(ErrorCode.HostUnreachable, peer + " is unreachable: " + e, e);
            };
        }
    }

    /** Starts sending {@code baseUrl}'s commands over the wire protocol when its HTTP reply names a command port. */
    private void learnCommandPort(String baseUrl, @Nullable Header header) {
        if (header == null || channels.containsKey(baseUrl)) {
            return;
        }
        try {
            int port = Integer.parseInt(header.getValue().trim());
            String host = URI.create(baseUrl).getHost();
            if (port > 0 && port < 65536 && host != null) {
                channels.computeIfAbsent(baseUrl, url -> new WireCommandChannel(host, port, connectTimeout, requestTimeout, clusterKey, nanoTicker));
            }
        } catch (IllegalArgumentException ignored) {
            // a header we cannot read: keep using HTTP, which works
        }
    }

    /**
     * Like {@link #run} but turns an error reply into a thrown {@link CommandException}.
     */
    public BsonDocument runChecked(String peerName, String baseUrl, String db, BsonDocument command) {
        return ErrorReplies.requireOk(run(peerName, baseUrl, db, command));
    }

    /**
     * Runs {@code call} on this thread; on a fork-join pool's worker (a {@code CompletableFuture.supplyAsync},
     * a parallel stream) inside {@link ForkJoinPool#managedBlock}, so the pool adds a worker while this one
     * waits on its socket instead of starving the pool's other tasks — the JDK client's {@code send}, which
     * waits on a future, got that for free.
     */
    private static <T> T blocking(Supplier<T> call, String peerName) {
        if (!(Thread.currentThread() instanceof ForkJoinWorkerThread)) {
            return call.get();
        }
        BlockingCall<T> blocker = new BlockingCall<>(call);
        try {
            ForkJoinPool.managedBlock(blocker);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.HostUnreachable, "interrupted while waiting for " + peerName, e);
        }
        return blocker.result();
    }

    /** One exchange as a {@link ForkJoinPool.ManagedBlocker}. */
    private static final class BlockingCall<T> implements ForkJoinPool.ManagedBlocker {
        private final Supplier<T> call;
        private @Nullable T result;

        BlockingCall(Supplier<T> call) {
            this.call = call;
        }

        @Override
        public boolean block() {
            result = call.get();
            return true;
        }

        @Override
        public boolean isReleasable() {
            return result != null;
        }

        /** The call's value: {@code managedBlock} returns only once {@link #block} has run it. */
        T result() {
            T done = result;
            if (done == null) {
                throw new IllegalStateException("managedBlock returned before the call ran");
            }
            return done;
        }
    }

    /** One POST of {@code body}; the whole reply body, or a CommandException saying why there is none. */
    private byte[] exchange(String peerName, String baseUrl, String path, String commandName, byte[] body) {
        HttpPost post = new HttpPost(baseUrl + path);
        post.setHeader(HttpHeaders.ACCEPT, InternalApi.MEDIA_TYPE_BSON);
        if (memberToken != null) {
            post.setHeader(InternalApi.MEMBER_TOKEN_HEADER, memberToken.current());
        }
        post.setEntity(new ByteArrayEntity(body, BSON));
        try {
            return http.execute(post, response -> {
                if (response.getCode() != 200) {
                    EntityUtils.consume(response.getEntity());
                    throw new CommandException(ErrorCode.HostUnreachable,
                            peerName + " at " + baseUrl + " answered HTTP " + response.getCode() + " to " + commandName);
                }
                learnCommandPort(baseUrl, response.getFirstHeader(InternalApi.COMMAND_PORT_HEADER));
                byte[] bytes = response.getEntity() == null ? null : EntityUtils.toByteArray(response.getEntity());
                if (bytes == null || bytes.length == 0) {
                    throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " sent an empty reply to " + commandName);
                }
                return bytes;
            });
        } catch (ConnectTimeoutException e) {
            throw new CommandException(ErrorCode.NetworkTimeout, "connecting to " + peerName + " at " + baseUrl + " timed out", e);
        } catch (SocketTimeoutException e) {
            throw new CommandException(ErrorCode.NetworkTimeout,
                    peerName + " at " + baseUrl + " did not answer " + commandName + " within " + requestTimeout.toMillis() + " ms", e);
        } catch (ConnectException e) {
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " refused the connection", e);
        } catch (InterruptedIOException e) {
            // the pool had no free connection in time (ConnectionRequestTimeoutException), or the thread was interrupted
            if (Thread.currentThread().isInterrupted()) {
                throw new CommandException(ErrorCode.HostUnreachable, "interrupted while waiting for " + peerName, e);
            }
            throw new CommandException(ErrorCode.NetworkTimeout, "no connection to " + peerName + " at " + baseUrl + " became free: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " is unreachable: " + e, e);
        }
    }

    /** Connections lent out of the pool right now: zero whenever no call is in flight (for leak tests). */
    int leasedConnections() {
        return pool.getTotalStats().getLeased();
    }

    /** Wire connections open to {@code baseUrl}'s command port, lent out or idle; -1 without a channel (for tests). */
    int wireConnections(String baseUrl) {
        WireCommandChannel channel = channels.get(baseUrl);
        return channel == null ? -1 : channel.openConnections();
    }

    /** Closes every pooled connection; calls after this fail. */
    @Override
    public void close() {
        channels.values().forEach(WireCommandChannel::close);
        http.close(CloseMode.GRACEFUL);
    }
}
