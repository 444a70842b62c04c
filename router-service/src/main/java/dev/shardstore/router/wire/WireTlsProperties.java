package dev.shardstore.router.wire;

import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.router.wire.tls.*}: TLS on the router's wire-protocol listener, MongoDB's {@code net.tls} options for
 * that listener (MongoDB manual, "Configure mongod and mongos for TLS/SSL").
 *
 * @param mode                                 {@code disabled}, {@code allowTLS}, {@code preferTLS} or {@code requireTLS}
 *                                             ({@link TlsMode})
 * @param certificateKeyFile                   a PEM file holding the listener's certificate (chain) and its private key
 *                                             ({@code net.tls.certificateKeyFile}); required unless disabled
 * @param caFile                               a PEM file of the certificate authorities that sign client certificates
 *                                             ({@code net.tls.CAFile}); with it a TLS client must present a certificate
 *                                             they signed, unless {@code allowConnectionsWithoutCertificates}
 * @param allowConnectionsWithoutCertificates  with a CA file, still admit TLS clients that present no certificate
 *                                             ({@code net.tls.allowConnectionsWithoutCertificates}); a certificate that
 *                                             is presented must verify either way
 */
@ConfigurationProperties("shardstore.router.wire.tls")
public record WireTlsProperties(
        @DefaultValue("disabled") TlsMode mode,
        @Nullable Path certificateKeyFile,
        @Nullable Path caFile,
        @DefaultValue("false") boolean allowConnectionsWithoutCertificates) {
    /** TLS off. */
    public static final WireTlsProperties DISABLED = new WireTlsProperties(TlsMode.DISABLED, null, null, false);

    /** @throws IllegalArgumentException a mode other than disabled without a certificate key file */
    public WireTlsProperties {
        Objects.requireNonNull(mode, "mode");
        if (mode != TlsMode.DISABLED && certificateKeyFile == null) {
            throw new IllegalArgumentException("shardstore.router.wire.tls.mode " + mode.mongoName()
                    + " needs shardstore.router.wire.tls.certificate-key-file (a PEM file with the certificate and its private key)");
        }
    }
}
