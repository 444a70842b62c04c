package dev.shardstore.contracts.clock;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The one place cluster time is gossiped (mongo/src/mongo/db/s/README.md "Cluster time gossiping"): every message a process sends
 * carries its cluster time as {@code $clusterTime: {clusterTime: Timestamp, signature: {hash, keyId}}}, and every
 * message it receives moves its {@link LogicalClock} up to the time it carries. Replies to commands also carry
 * {@code operationTime}, the cluster time of the latest state the command saw or made.
 *
 * <p>Four hooks, one per direction: {@link #outgoing} and {@link #fromReply} where an internal request is built and
 * its reply read (the peer client), {@link #received} where a server takes a command in, {@link #stamp} where it
 * answers. A client's time that is ahead of this node's must carry a valid signature, or the command is refused and the
 * clock does not move. A peer's time is trusted in a cluster without a key (anyone who reaches the internal endpoints
 * is a peer there); in a cluster with one ({@link #ClusterTimeGossip(LogicalClock, ClusterTimeSigner, boolean)}), where
 * peers have proved membership, a peer's time ahead of this node's is refused like a client's when it is signed and the
 * signature does not verify (a forged or stale signature on any path), and taken when it carries the dummy signature
 * (key id 0) of a member that has no key yet: a member may advance the clock, as MongoDB's {@code __system} holds
 * {@code advanceClusterTime}, and a member's key cache is empty until its first read of {@code admin.system.keys} —
 * itself a peer request. Thread-safe.
 */
public final class ClusterTimeGossip {
    /** The field that carries the cluster time in requests and replies. */
    public static final String CLUSTER_TIME = "$clusterTime";
    /** The reply field with the time of the state the command saw or made. */
    public static final String OPERATION_TIME = "operationTime";

    private final LogicalClock clock;
    private final ClusterTimeSigner signer;
    private final boolean verifyPeers;

    /** Gossip that trusts every peer's time: a cluster without a key. */
    public ClusterTimeGossip(LogicalClock clock, ClusterTimeSigner signer) {
        this(clock, signer, false);
    }

    /**
     * @param verifyPeers whether a peer's signed time is checked too (a cluster with a key, whose peers are members)
     */
    public ClusterTimeGossip(LogicalClock clock, ClusterTimeSigner signer, boolean verifyPeers) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.signer = Objects.requireNonNull(signer, "signer");
        this.verifyPeers = verifyPeers;
    }

    /** The process's clock. */
    public LogicalClock clock() {
        return clock;
    }

    /** Who sent a command: another service of the cluster (trusted) or a client (its time must be signed). */
    public enum Sender { PEER, CLIENT }

    /** {@code request} with this process's signed {@code $clusterTime} added (a copy; the argument is unchanged). */
    public BsonDocument outgoing(BsonDocument request) {
        BsonDocument copy = new BsonDocument();
        copy.putAll(request);
        copy.put(CLUSTER_TIME, signed(clock.clusterTime()));
        return copy;
    }

    /**
     * Moves the clock up to the {@code $clusterTime} a peer's reply carries, and removes it from the reply (it is this
     * hop's, not the caller's, to pass on); {@code operationTime} stays for the caller to read.
     */
    public void fromReply(BsonDocument reply) {
        if (reply.remove(CLUSTER_TIME) instanceof BsonDocument time && time.get("clusterTime") instanceof BsonTimestamp ts) {
            clock.advanceTo(ts);
        }
    }

    /**
     * Takes the {@code $clusterTime} out of a received command and moves the clock up to it. From a
     * {@link Sender#CLIENT}, a time ahead of this node's must be validly signed (checked before the clock moves); from a
     * {@link Sender#PEER} of a cluster with a key, a signed one must verify (see the class comment); a time not ahead
     * needs no signature.
     *
     * <p>Then a {@code readConcern.afterClusterTime} must not be ahead of the clock: no node of the cluster can have
     * made a write at a time no message has carried yet.
     *
     * @throws CommandException TypeMismatch (14) for a malformed {@code $clusterTime}; TimeProofMismatch (204) or
     *                          KeyNotFound (211) for a bad signature; ClusterTimeFailsRateLimiter (205) beyond
     *                          the drift bound (in each case the clock has not moved); InvalidOptions (72) for an
     *                          {@code afterClusterTime} ahead of the clock; {@link ReadConcern#of}'s errors
     */
    public void received(BsonDocument command, Sender sender) {
        advanceFrom(command, sender);
        BsonTimestamp after = ReadConcern.of(command).afterClusterTime();
        if (after != null && Long.compareUnsigned(after.getValue(), clock.clusterTime().getValue()) > 0) {
            throw new CommandException(ErrorCode.InvalidOptions, "readConcern.afterClusterTime " + after
                    + " must not be greater than the current clusterTime " + clock.clusterTime());
        }
    }

    private void advanceFrom(BsonDocument command, Sender sender) {
        BsonValue field = command.remove(CLUSTER_TIME);
        if (field == null) {
            return;
        }
        if (!(field instanceof BsonDocument time && time.get("clusterTime") instanceof BsonTimestamp ts
                && time.get("signature", new BsonDocument()) instanceof BsonDocument signature)) {
            throw new CommandException(ErrorCode.TypeMismatch,
                    "'$clusterTime' must be {clusterTime: Timestamp, signature: {hash: BinData, keyId: long}}, not " + field);
        }
        if (Long.compareUnsigned(ts.getValue(), clock.clusterTime().getValue()) <= 0) {
            return;
        }
        if (sender == Sender.CLIENT || verifyPeers && !isDummy(signature)) {
            clock.checkDrift(ts);
            signer.verify(ts, signature);
        }
        clock.advanceTo(ts);
    }

    /** Whether {@code signature} is MongoDB's dummy one, key id 0: a node that has no key signs with it. */
    private static boolean isDummy(BsonDocument signature) {
        return signature.isNumber("keyId") && signature.getNumber("keyId").longValue() == 0;
    }

    /**
     * Adds {@code $clusterTime} (this process's signed cluster time) and {@code operationTime} to a reply, success or
     * error, replacing any a peer's reply carried.
     *
     * @return {@code reply}, changed in place
     */
    public BsonDocument stamp(BsonDocument reply, BsonTimestamp operationTime) {
        reply.put(CLUSTER_TIME, signed(clock.clusterTime()));
        reply.put(OPERATION_TIME, operationTime);
        return reply;
    }

    /** {@code {clusterTime, signature: {hash, keyId}}}. */
    private BsonDocument signed(BsonTimestamp time) {
        return new BsonDocument("clusterTime", time).append("signature", signer.sign(time));
    }
}
