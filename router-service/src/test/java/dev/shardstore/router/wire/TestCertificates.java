package dev.shardstore.router.wire;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemGenerationException;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * X.509 material made for one test with BouncyCastle: a certificate authority and certificates it signs, written as
 * the PEM files a TLS listener is configured with, and the client {@link SSLContext}s that trust (and present) them.
 */
public final class TestCertificates {
    private static final AtomicLong SERIALS = new AtomicLong(1);

    /** A key pair and its certificate, signed by {@code issuer} (null: self-signed). */
    public record Identity(KeyPair keys, X509Certificate certificate) {}

    private TestCertificates() {
    }

    /** A CA named {@code name}. */
    public static Identity authority(String name) {
        return issue(name, null, true);
    }

    /** A leaf certificate for {@code localhost} and 127.0.0.1, signed by {@code issuer}. */
    public static Identity leaf(String name, Identity issuer) {
        return issue(name, issuer, false);
    }

    private static Identity issue(String name, Identity issuer, boolean authority) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair keys = generator.generateKeyPair();
            X500Name subject = new X500Name("CN=" + name);
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    issuer == null ? subject : new X500Name(issuer.certificate().getSubjectX500Principal().getName()),
                    BigInteger.valueOf(SERIALS.getAndIncrement()), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
            if (!authority) {
                builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            }
            KeyPair signer = issuer == null ? keys : issuer.keys();
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
            return new Identity(keys, certificate);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot make a test certificate", e);
        }
    }

    /** {@code identity}'s certificate and private key in one PEM file ({@code net.tls.certificateKeyFile}'s shape). */
    public static Path writeCertificateKeyFile(Identity identity, Path file) {
        try {
            // PKCS#8 ("PRIVATE KEY"), the form every PEM reader takes
            return write(file, identity.certificate(), new JcaPKCS8Generator(identity.keys().getPrivate(), null).generate());
        } catch (PemGenerationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code identity}'s certificate and its EC private key in SEC1 form ({@code BEGIN EC PRIVATE KEY}). */
    public static Path writeCertificateKeyFileSec1(Identity identity, Path file) {
        return write(file, identity.certificate(), identity.keys().getPrivate());
    }

    /** {@code authority}'s certificate as a PEM file ({@code net.tls.CAFile}'s shape). */
    public static Path writeCaFile(Identity authority, Path file) {
        return write(file, authority.certificate());
    }

    private static Path write(Path file, Object... objects) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            for (Object object : objects) {
                pem.writeObject(object);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return Files.writeString(file, text.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client context that trusts {@code authority} and, when {@code client} is given, presents it. */
    public static SSLContext clientContext(Identity authority, Identity client) {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("ca", authority.certificate());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            KeyManagerFactory keys = null;
            if (client != null) {
                KeyStore own = KeyStore.getInstance("PKCS12");
                own.load(null, null);
                own.setKeyEntry("client", client.keys().getPrivate(), new char[0], new java.security.cert.Certificate[] {client.certificate()});
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(own, new char[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make a client TLS context", e);
        }
    }
}
