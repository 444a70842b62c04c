package dev.shardstore.contracts.clock;

import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;

/**
 * Signs cluster times and checks signatures (mongo/src/mongo/db/s/README.md "Cluster time signing"): the signature of a
 * {@code $clusterTime} is {@code {hash: BinData(0, <20 bytes>), keyId: NumberLong}}, an HMAC-SHA1 of the time under
 * the key {@code keyId} of {@code admin.system.keys}.
 */
public interface ClusterTimeSigner {
    /** The signature of {@code time}: {@code {hash, keyId}}. */
    BsonDocument sign(BsonTimestamp time);

    /**
     * Checks that {@code signature} is the signature of {@code time}.
     *
     * @throws dev.shardstore.contracts.error.CommandException TimeProofMismatch (204) for a hash that does not match
     *         or a malformed signature, KeyNotFound (211) for a key id the node does not know
     */
    void verify(BsonTimestamp time, BsonDocument signature);

    /**
     * The signer of a cluster without keys: MongoDB's dummy signature (a zero hash, key id 0), as a server with
     * authentication disabled sends; it accepts every signature.
     */
    ClusterTimeSigner UNSIGNED = new ClusterTimeSigner() {
        @Override
        public BsonDocument sign(BsonTimestamp time) {
            return new BsonDocument("hash", new BsonBinary(new byte[20])).append("keyId", new BsonInt64(0));
        }

        @Override
        public void verify(BsonTimestamp time, BsonDocument signature) {}
    };
}
