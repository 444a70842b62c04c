package dev.shardstore.router.wire;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

/**
 * TLS on the wire listener ({@link WireTlsProperties}): decides from a new connection's first bytes whether it speaks
 * TLS, refuses what the mode does not admit, and for a TLS client completes the handshake, so that the connection's
 * loop reads plain OP_MSG frames either way. The certificates are read once, at start, through Spring Boot's PEM SSL
 * bundle (no TLS or PEM code of our own).
 *
 * <p>A TLS client's first record is a handshake record (content type 22, version 3.x) holding a ClientHello (handshake
 * type 1 at its sixth byte); a MongoDB client's first bytes are a message header (length, requestID). The header would
 * have to say a length of 790 bytes modulo 65,536 and a requestID whose second byte is 1 to look like TLS, so six
 * bytes tell them apart.
 */
final class WireTls {
    /** The bytes read to tell TLS from plain: a TLS record header and the handshake type. */
    private static final int PROBE_BYTES = 6;

    private final TlsMode mode;
    private final @Nullable SSLContext context;
    private final boolean needClientCertificate;
    private final boolean wantClientCertificate;

    private WireTls(TlsMode mode, @Nullable SSLContext context, boolean needClientCertificate, boolean wantClientCertificate) {
        this.mode = mode;
        this.context = context;
        this.needClientCertificate = needClientCertificate;
        this.wantClientCertificate = wantClientCertificate;
    }

    /**
     * The listener's TLS as {@code properties} configure it.
     *
     * @throws UncheckedIOException a certificate or CA file that cannot be read
     * @throws IllegalStateException a file that holds no usable certificate or key (Spring Boot's message says which)
     */
    static WireTls of(WireTlsProperties properties) {
        if (properties.mode() == TlsMode.DISABLED) {
            return new WireTls(TlsMode.DISABLED, null, false, false);
        }
        Path identityFile = Objects.requireNonNull(properties.certificateKeyFile(), "certificateKeyFile"); // checked by the properties
        String identity = read(identityFile);
        PemSslStoreDetails keyStore = PemSslStoreDetails.forCertificates(identity).withPrivateKey(identity);
        Path caFile = properties.caFile();
        PemSslStoreDetails trustStore = caFile == null ? null : PemSslStoreDetails.forCertificates(read(caFile));
        SslBundle bundle = SslBundle.of(new PemSslStoreBundle(keyStore, trustStore));
        checkKeyMatchesCertificate(Objects.requireNonNull(bundle.getStores().getKeyStore(), "key store"), identityFile);
        SSLContext context = bundle.createSslContext();
        boolean verifiesClients = caFile != null;
        return new WireTls(properties.mode(), context, verifiesClients && !properties.allowConnectionsWithoutCertificates(),
                verifiesClients && properties.allowConnectionsWithoutCertificates());
    }

    /**
     * Signs a probe with the file's private key and verifies it with its certificate's public key, so that a key that
     * does not work fails the start and not every handshake. (Spring Boot 4.1's reader of SEC1 {@code EC PRIVATE KEY}
     * blocks yields a key whose signatures do not verify; its PKCS#8 {@code PRIVATE KEY} blocks work.)
     *
     * @throws IllegalStateException when the key's signatures do not verify
     */
    private static void checkKeyMatchesCertificate(KeyStore store, Path file) {
        try {
            String alias = store.aliases().nextElement();
            PrivateKey key = (PrivateKey) store.getKey(alias, new char[0]);
            Certificate certificate = store.getCertificate(alias);
            String algorithm = "EC".equals(key.getAlgorithm()) ? "SHA256withECDSA" : "SHA256with" + key.getAlgorithm();
            byte[] probe = "shardstore".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate);
            verifier.update(probe);
            if (!verifier.verify(signer.sign())) {
                throw new IllegalStateException("the private key in " + file + " does not match its certificate, or could not be read"
                        + " as written (an EC key in SEC1 form, 'BEGIN EC PRIVATE KEY': convert it with openssl pkcs8 -topk8 -nocrypt)"
                        + " (shardstore.router.wire.tls.certificate-key-file)");
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot use the private key in " + file + ": " + e.getMessage()
                    + " (shardstore.router.wire.tls.certificate-key-file)", e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the TLS file " + file + " (shardstore.router.wire.tls.*)", e);
        }
    }

    TlsMode mode() {
        return mode;
    }

    /**
     * The connection as its loop should read it: the TLS socket over {@code socket} after a completed handshake, or
     * {@code socket} itself with the bytes read to decide.
     *
     * @param handshakeTimeout how long the first bytes and the handshake may take
     * @throws RefusedException a plain connection under {@code requireTLS}
     * @throws IOException the client went away or the handshake failed (a certificate that does not verify)
     */
    Accepted accept(Socket socket, Duration handshakeTimeout) throws IOException {
        if (context == null) {
            return new Accepted(socket, new byte[0]);
        }
        socket.setSoTimeout(Math.toIntExact(handshakeTimeout.toMillis())); // only until the handshake is over
        byte[] probe = socket.getInputStream().readNBytes(PROBE_BYTES);
        if (!isClientHello(probe)) {
            if (mode == TlsMode.REQUIRE_TLS) {
                throw new RefusedException("a plain connection to a listener whose net.tls.mode is requireTLS");
            }
            socket.setSoTimeout(0);
            return new Accepted(socket, probe);
        }
        InputStream consumed = new ByteArrayInputStream(probe);
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, consumed, true);
        tls.setUseClientMode(false);
        tls.setNeedClientAuth(needClientCertificate);
        if (!needClientCertificate) {
            tls.setWantClientAuth(wantClientCertificate);
        }
        tls.startHandshake();
        socket.setSoTimeout(0);
        return new Accepted(tls, new byte[0]);
    }

    private static boolean isClientHello(byte[] probe) {
        return probe.length == PROBE_BYTES && probe[0] == 22 && probe[1] == 3 && probe[2] >= 0 && probe[2] <= 4 && probe[5] == 1;
    }

    /**
     * An accepted connection.
     *
     * @param socket      the socket to serve (a TLS one for a TLS client)
     * @param alreadyRead bytes of the first message already read from {@code socket} (a plain client's probe), to be
     *                    read before the socket's own
     */
    record Accepted(Socket socket, byte[] alreadyRead) {
        Accepted {
            alreadyRead = alreadyRead.clone();
        }

        @Override
        public byte[] alreadyRead() {
            return alreadyRead.clone();
        }
    }

    /** A connection the mode does not admit; it is closed unanswered. */
    static final class RefusedException extends IOException {
        RefusedException(String message) {
            super(message);
        }
    }
}
