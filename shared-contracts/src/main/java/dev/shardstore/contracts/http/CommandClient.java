package dev.shardstore.contracts.http;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonSerializationException;
import org.jspecify.annotations.Nullable;

/**
 * Sends command documents to a peer service per {@link InternalApi} and returns its reply
 * document, which may be an error reply ({@code ok: 0}) for the caller to act on.
 *
 * <p>Transport failures never hang and never pass silently: a refused or reset connection is
 * {@code HostUnreachable} (6), a connect or request timeout is {@code NetworkTimeout} (89), and a
 * non-200 status or an unreadable body is {@code HostUnreachable} naming the peer. Thread-safe.
 *
 * <p>Inside the cluster every request carries the process's cluster time and every reply's moves its clock
 * ({@link ClusterTimeGossip}, the only gossip hook of the transport).
 */
public final class CommandClient {
    private final HttpClient http;
    private final Duration requestTimeout;
    private final @Nullable ClusterTimeGossip gossip;

    /**
     * A client outside the cluster's time line (a command-line tool): it gossips no cluster time.
     *
     * @param connectTimeout how long to wait for a TCP connection
     * @param requestTimeout how long to wait for a whole reply
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
        this.gossip = gossip;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Objects.requireNonNull(connectTimeout, "connectTimeout"))
                .build();
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    }

    /**
     * Runs {@code command} against database {@code db} on the peer at {@code baseUrl}.
     *
     * @param peerName names the peer in error messages (a shard id or "config")
     * @throws CommandException HostUnreachable or NetworkTimeout when the peer did not answer
     */
    public BsonDocument run(String peerName, String baseUrl, String db, BsonDocument command) {
        URI uri = URI.create(baseUrl + InternalApi.commandPath(db));
        BsonDocument sent = gossip == null ? command : gossip.outgoing(command);
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(requestTimeout)
                .header("Content-Type", InternalApi.MEDIA_TYPE_BSON)
                .header("Accept", InternalApi.MEDIA_TYPE_BSON)
                .POST(HttpRequest.BodyPublishers.ofByteArray(BsonBytes.encode(sent)))
                .build();
        HttpResponse<byte[]> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpConnectTimeoutException e) {
            throw new CommandException(ErrorCode.NetworkTimeout, "connecting to " + peerName + " at " + baseUrl + " timed out", e);
        } catch (HttpTimeoutException e) {
            throw new CommandException(ErrorCode.NetworkTimeout,
                    peerName + " at " + baseUrl + " did not answer within " + requestTimeout.toMillis() + " ms", e);
        } catch (ConnectException e) {
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " refused the connection", e);
        } catch (IOException e) {
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " is unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.HostUnreachable, "interrupted while waiting for " + peerName, e);
        }
        if (response.statusCode() != 200) {
            throw new CommandException(ErrorCode.HostUnreachable,
                    peerName + " at " + baseUrl + " answered HTTP " + response.statusCode() + " to " + command.getFirstKey());
        }
        BsonDocument reply;
        try {
            reply = BsonBytes.decode(response.body());
        } catch (BsonSerializationException e) {
            throw new CommandException(ErrorCode.HostUnreachable, peerName + " at " + baseUrl + " sent an unreadable reply", e);
        }
        if (gossip != null) {
            gossip.fromReply(reply);
        }
        return reply;
    }

    /**
     * Like {@link #run} but turns an error reply into a thrown {@link CommandException}.
     */
    public BsonDocument runChecked(String peerName, String baseUrl, String db, BsonDocument command) {
        BsonDocument reply = run(peerName, baseUrl, db, command);
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }
}
