package dev.shardstore.transport.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/**
 * The proofs of membership: a key file's rules, the HTTP member token (accepted under the same key within its validity,
 * refused under another key, out of its window or malformed) and the command port's handshake (a member on both
 * sides; a wrong key, another command first, or a replayed proof refused with Unauthorized).
 */
class MembershipProofTest {
    private static final ClusterKey KEY = ClusterKey.of(ClusterKey.generate(new SecureRandom()));
    private static final ClusterKey OTHER = ClusterKey.of(ClusterKey.generate(new SecureRandom()));
    private static final Instant NOW = Instant.parse("2026-12-02T07:00:00Z");

    private static Clock at(Instant instant) {
        return Clock.fixed(instant, ZoneOffset.UTC);
    }

    @Test
    void aKeyHasSixTo1024Base64CharactersWhitespaceIgnoredAndNeverPrintsItself() {
        assertThat(ClusterKey.of(" abc\n def+/= \n").toString()).isEqualTo("ClusterKey[redacted]");
        assertThat(ClusterKey.generate(new SecureRandom())).hasSize(64);
        assertThatThrownBy(() -> ClusterKey.of("abcde")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("6 to 1024");
        assertThatThrownBy(() -> ClusterKey.of("a".repeat(1025))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterKey.of("abcdef-ghij")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("base64");
    }

    @Test
    void aTokenIsAcceptedUnderTheSameKeyWithinItsValidityEitherSideOfTheClock() {
        String token = new MemberToken(KEY, at(NOW)).current();

        assertThat(new MemberToken(KEY, at(NOW)).accepts(token)).isTrue();
        assertThat(new MemberToken(KEY, at(NOW.plus(MemberToken.VALIDITY))).accepts(token)).isTrue();
        assertThat(new MemberToken(KEY, at(NOW.minus(MemberToken.VALIDITY))).accepts(token)).isTrue();
        assertThat(new MemberToken(KEY, at(NOW.plus(MemberToken.VALIDITY).plusSeconds(1))).accepts(token)).isFalse();
        assertThat(new MemberToken(KEY, at(NOW.minus(MemberToken.VALIDITY).minusSeconds(1))).accepts(token)).isFalse();
    }

    @Test
    void aRememberedTokenStillExpires() {
        MutableClock clock = new MutableClock(NOW);
        MemberToken receiver = new MemberToken(KEY, clock);
        String token = new MemberToken(KEY, at(NOW)).current();
        assertThat(receiver.accepts(token)).isTrue();

        clock.now = NOW.plus(MemberToken.VALIDITY).plusSeconds(1);
        assertThat(receiver.accepts(token)).isFalse();
    }

    @Test
    void aTokenOfAnotherKeyATamperedOneOrGarbageIsRefused() {
        MemberToken receiver = new MemberToken(KEY, at(NOW));
        String foreign = new MemberToken(OTHER, at(NOW)).current();
        String[] parts = new MemberToken(KEY, at(NOW)).current().split("\\.");

        assertThat(receiver.accepts(foreign)).isFalse();
        assertThat(receiver.accepts(parts[0] + "." + (Long.parseLong(parts[1]) + 1) + "." + parts[2])).as("another second").isFalse();
        assertThat(receiver.accepts(null)).isFalse();
        for (String garbage : List.of("", "1", "1.2", "2." + parts[1] + "." + parts[2], "1.x." + parts[2], "1." + parts[1] + ".!!", "1.2.3.4")) {
            assertThat(receiver.accepts(garbage)).as(garbage).isFalse();
        }
    }

    @Test
    void aSenderReusesItsTokenForAMinuteThenIssuesTheNext() {
        MutableClock clock = new MutableClock(NOW);
        MemberToken sender = new MemberToken(KEY, clock);
        String first = sender.current();

        clock.now = NOW.plus(MemberToken.REISSUE_AFTER).minusSeconds(1);
        assertThat(sender.current()).isEqualTo(first);
        clock.now = NOW.plus(MemberToken.REISSUE_AFTER);
        assertThat(sender.current()).isNotEqualTo(first);
    }

    @Test
    void theHandshakeMakesAConnectionAMemberWhenBothSidesHoldTheKey() throws Exception {
        MemberHandshake.Server server = new MemberHandshake.Server(KEY);
        List<BsonDocument> sent = new ArrayList<>();

        MemberHandshake.authenticate(KEY, request -> {
            sent.add(request.clone());
            return server.answer(MemberHandshake.DB, request);
        });

        assertThat(server.member()).isTrue();
        assertThat(sent).hasSize(2).allSatisfy(request -> assertThat(request.getFirstKey()).isEqualTo(MemberHandshake.COMMAND));
        assertThat(sent.toString()).as("the key never travels").doesNotContain(ClusterKey.class.getSimpleName());
    }

    @Test
    void aClientWithAnotherKeyIsRefusedAndTheConnectionStaysANonMember() {
        MemberHandshake.Server server = new MemberHandshake.Server(KEY);

        assertUnauthorized(() -> MemberHandshake.authenticate(OTHER, request -> replyOf(server, request)));
        assertThat(server.member()).isFalse();
    }

    @Test
    void aServerWithAnotherKeyIsRefusedByTheClient() {
        MemberHandshake.Server server = new MemberHandshake.Server(OTHER);
        // the server refuses the client's proof first; a server that lies about its proof is refused by the client too
        assertUnauthorized(() -> MemberHandshake.authenticate(KEY, request -> replyOf(server, request)));
        assertUnauthorized(() -> MemberHandshake.authenticate(KEY, request -> request.containsKey("proof")
                ? new BsonDocument("ok", new BsonInt32(1)).append("proof", new BsonBinary(new byte[32]))
                : server.answer(MemberHandshake.DB, request)));
    }

    @Test
    void anyOtherCommandBeforeTheHandshakeIsUnauthorized() {
        MemberHandshake.Server server = new MemberHandshake.Server(KEY);

        assertUnauthorized(() -> server.answer("db", new BsonDocument("insert", new BsonInt32(1))));
        assertUnauthorized(() -> server.answer("db", new BsonDocument(MemberHandshake.COMMAND, new BsonInt32(1))));
        assertUnauthorized(() -> server.answer(MemberHandshake.DB, new BsonDocument()));
        assertThat(server.member()).isFalse();
    }

    @Test
    void aProofRecordedOnOneConnectionDoesNotAuthenticateAnother() throws Exception {
        List<BsonDocument> recorded = new ArrayList<>();
        MemberHandshake.Server first = new MemberHandshake.Server(KEY);
        MemberHandshake.authenticate(KEY, request -> {
            recorded.add(request.clone());
            return first.answer(MemberHandshake.DB, request);
        });

        MemberHandshake.Server second = new MemberHandshake.Server(KEY);
        second.answer(MemberHandshake.DB, recorded.get(0));
        assertUnauthorized(() -> second.answer(MemberHandshake.DB, recorded.get(1)));
        assertThat(second.member()).isFalse();
    }

    private static BsonDocument replyOf(MemberHandshake.Server server, BsonDocument request) {
        try {
            return server.answer(MemberHandshake.DB, request);
        } catch (CommandException e) {
            return e.toReply();
        }
    }

    private static void assertUnauthorized(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.Unauthorized));
    }

    /** A clock a test moves. */
    private static final class MutableClock extends Clock {
        Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
