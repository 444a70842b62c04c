package dev.shardstore.balancer.cluster;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.ServiceSupportProperties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The balancer's peers as a recording fake: a config service whose {@code config.settings}, {@code config.shards},
 * {@code config.collections}, {@code config.chunks} and {@code config.tags} are the lists a test fills, shards that
 * report the owned bytes a test sets, and every other command answered ok (or as a test says) and recorded in order.
 * Thread-safe: a round runs its migrations on threads of its own.
 */
public final class RecordingPeers implements PeerCommands {
    /** The config service's URL in these tests. */
    public static final String CONFIG_URL = "http://config.test";

    /**
     * One command a peer received.
     *
     * @param peer    the peer's name ({@code config} or a shard id)
     * @param db      the database it ran on
     * @param command the command as sent
     */
    public record Call(String peer, String db, BsonDocument command) {
        /** The command's name. */
        public String name() {
            return command.getFirstKey();
        }
    }

    private final Map<String, List<BsonDocument>> configCollections = new ConcurrentHashMap<>();
    private final Map<String, Long> ownedBytes = new ConcurrentHashMap<>();
    private final Map<String, UnaryOperator<BsonDocument>> answers = new ConcurrentHashMap<>();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private long rounds;

    /** The service-support settings that point the balancer at this fake config service. */
    public static ServiceSupportProperties supportProperties() {
        return new Binder(new MapConfigurationPropertySource(Map.of("shardstore.config-url", CONFIG_URL)))
                .bindOrCreate("shardstore", ServiceSupportProperties.class);
    }

    /** Adds {@code doc} to {@code config.<collection>}. */
    public RecordingPeers store(String collection, BsonDocument doc) {
        configCollections.computeIfAbsent(collection, k -> new CopyOnWriteArrayList<>()).add(doc);
        return this;
    }

    /** Registers shard {@code id} (host {@code http://<id>.test}) owning {@code bytes} of every collection. */
    public RecordingPeers shard(String id, long bytes) {
        ownedBytes.put(id, bytes);
        return store("shards", new BsonDocument("_id", new BsonString(id)).append("host", new BsonString("http://" + id + ".test")));
    }

    /** Registers {@code collection} with {@code chunks} in {@code config.chunks}. */
    public RecordingPeers collection(ShardedCollection collection, List<Chunk> chunks) {
        store("collections", collection.toBson());
        chunks.forEach(chunk -> store("chunks", chunk.toBson().append("uuid", new BsonBinary(collection.uuid()))));
        return this;
    }

    /** Makes command {@code name} answer what {@code answer} returns (or throws) for the command sent. */
    public RecordingPeers answer(String name, UnaryOperator<BsonDocument> answer) {
        answers.put(name, answer);
        return this;
    }

    /** Every command received, in order. */
    public List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The commands named {@code name} received, in order. */
    public List<BsonDocument> calls(String name) {
        return calls.stream().filter(c -> c.name().equals(name)).map(Call::command).toList();
    }

    @Override
    public BsonDocument run(String peer, String url, String db, BsonDocument command) {
        calls.add(new Call(peer, db, command.clone()));
        UnaryOperator<BsonDocument> answer = answers.get(command.getFirstKey());
        if (answer != null) {
            return answer.apply(command);
        }
        return switch (command.getFirstKey()) {
            case "find" -> ok(new BsonDocument("cursor", new BsonDocument("firstBatch",
                    new BsonArray(find(command.getString("find").getValue(), command.getDocument("filter"))))));
            case "_shardsvrDataDistribution" -> {
                Long bytes = ownedBytes.get(peer);
                if (bytes == null) {
                    throw new CommandException(ErrorCode.HostUnreachable, peer + " at " + url + " refused the connection");
                }
                yield ok(new BsonDocument("ownedSizeBytes", new BsonInt64(bytes)));
            }
            case "_configsvrBalancerRound" -> ok(new BsonDocument("numBalancerRounds", new BsonInt64(countRound(command.containsKey("start")))));
            case "splitVector" -> ok(new BsonDocument("splitKeys", new BsonArray()));
            default -> ok(new BsonDocument());
        };
    }

    private synchronized long countRound(boolean start) {
        return start ? ++rounds : rounds;
    }

    /** The documents of {@code config.<collection>} equal to {@code filter} on each of its fields. */
    private List<BsonValue> find(String collection, BsonDocument filter) {
        List<BsonValue> found = new ArrayList<>();
        for (BsonDocument doc : configCollections.getOrDefault(collection, List.of())) {
            Map<String, BsonValue> fields = new HashMap<>(doc);
            if (filter.entrySet().stream().allMatch(e -> e.getValue().equals(fields.get(e.getKey())))) {
                found.add(doc.clone());
            }
        }
        return found;
    }

    private static BsonDocument ok(BsonDocument reply) {
        return reply.append("ok", new BsonDouble(1));
    }
}
