package dev.shardstore.support.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The SCRAM server against the published test vectors: RFC 7677 section 3 (SHA-256) and RFC 5802 section 5 (SHA-1). */
class ScramServerTest {
    @Test
    void rfc7677Sha256Exchange() {
        ScramCredentials credentials = ScramCredentials.derive(ScramMechanism.SCRAM_SHA_256, "pencil",
                Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256,
                user -> user.equals("user") ? Optional.of(credentials) : Optional.empty(), () -> "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");

        assertThat(server.first("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
                .isEqualTo("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
        assertThat(server.last("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
                .isEqualTo("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        assertThat(server.done()).isTrue();
        assertThat(server.user()).contains("user");
    }

    @Test
    void rfc5802Sha1Exchange() {
        ScramCredentials credentials = ScramCredentials.derive(ScramMechanism.SCRAM_SHA_1, "pencil",
                Base64.getDecoder().decode("QSXCR+Q6sek8bf92"), 4096);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_1, user -> Optional.of(credentials), () -> "3rfcNHYJY1ZVvWVs7j");

        assertThat(server.first("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"))
                .isEqualTo("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096");
        assertThat(server.last("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="))
                .isEqualTo("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");
    }

    @Test
    void wrongProofAndUnknownUserFailAlike() {
        ScramCredentials credentials = ScramCredentials.derive(ScramMechanism.SCRAM_SHA_256, "pencil",
                Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256,
                user -> user.equals("user") ? Optional.of(credentials) : Optional.empty(), () -> "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
        server.first("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        assertThatThrownBy(() -> server.last("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p="
                + Base64.getEncoder().encodeToString(new byte[32])))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.AuthenticationFailed);
                    assertThat(e.getMessage()).isEqualTo("Authentication failed.");
                });
        ScramServer other = new ScramServer(ScramMechanism.SCRAM_SHA_256, user -> Optional.empty());
        assertThatThrownBy(() -> other.first("n,,n=nobody,r=abc"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.getMessage()).isEqualTo("Authentication failed."));
    }

    @Test
    void createdCredentialsVerifyTheirPasswordOnly() {
        ScramCredentials created = ScramCredentials.create(ScramMechanism.SCRAM_SHA_256, "alice", "s3cret");
        ScramCredentials again = ScramCredentials.derive(ScramMechanism.SCRAM_SHA_256, "s3cret", created.salt(), created.iterationCount());
        ScramCredentials wrong = ScramCredentials.derive(ScramMechanism.SCRAM_SHA_256, "other", created.salt(), created.iterationCount());
        assertThat(again.storedKey()).isEqualTo(created.storedKey());
        assertThat(wrong.storedKey()).isNotEqualTo(created.storedKey());
        assertThat(created.iterationCount()).isEqualTo(15_000);
        assertThat(ScramCredentials.parse(ScramMechanism.SCRAM_SHA_256, created.toBson()).serverKey()).isEqualTo(created.serverKey());
    }
}
