package dev.shardstore.router.wire;

/**
 * The values of MongoDB's {@code net.tls.mode} (MongoDB manual, "net.tls.mode"), for the client listener only: which
 * incoming connections speak TLS. The listener tells the two kinds apart by the first bytes a client sends (a TLS
 * ClientHello record or an OP_MSG header).
 *
 * <p>MongoDB's {@code allowTLS} and {@code preferTLS} differ only in the connections a member opens to other members;
 * this listener opens none (the router's calls to shards are authenticated by the cluster key and are not encrypted:
 * docs/architecture.md "Security"), so both accept plain and TLS clients alike.
 */
public enum TlsMode {
    /** Plain connections only; a TLS handshake is not understood and its connection closes. */
    DISABLED("disabled"),
    /** Plain and TLS connections. */
    ALLOW_TLS("allowTLS"),
    /** Plain and TLS connections (see the class comment). */
    PREFER_TLS("preferTLS"),
    /** TLS connections only; a plain connection is closed before any of its messages is read. */
    REQUIRE_TLS("requireTLS");

    private final String mongoName;

    TlsMode(String mongoName) {
        this.mongoName = mongoName;
    }

    /** MongoDB's spelling of the mode ({@code allowTLS}, ...). */
    public String mongoName() {
        return mongoName;
    }
}
