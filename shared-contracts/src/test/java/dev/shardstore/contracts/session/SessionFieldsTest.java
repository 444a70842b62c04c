package dev.shardstore.contracts.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.UUID;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The session fields of a command (mongo/src/mongo/db/s/README.md "Logical Sessions", "Retryable writes"): lsid, txnNumber, stmtId(s). */
class SessionFieldsTest {
    private static final String ID = "{$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}";

    @Test
    void anLsidRoundTripsWithAndWithoutUid() {
        LogicalSessionId plain = LogicalSessionId.parse(ExtendedJson.parse("{id: " + ID + "}"), "lsid");
        assertThat(plain.id()).isEqualTo(UUID.fromString("00010203-0405-0607-0809-0a0b0c0d0e0f"));
        assertThat(LogicalSessionId.parse(plain.toBson(), "lsid")).isEqualTo(plain);
        LogicalSessionId withUid = LogicalSessionId.parse(ExtendedJson.parse("{id: " + ID + ", uid: {$binary: {base64: 'AQI=', subType: '00'}}}"), "lsid");
        assertThat(withUid).isNotEqualTo(plain);
        assertThat(LogicalSessionId.parse(withUid.toBson(), "lsid")).isEqualTo(withUid).hasSameHashCodeAs(withUid);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {lsid: 5}                                                                      | 14    | 'lsid' must be a document
            {lsid: {id: 1}}                                                                | 14    | 'lsid.id' must be a UUID
            {lsid: {id: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '00'}}}}   | 14    | 'lsid.id' must be a UUID
            {lsid: {}}                                                                     | 40414 | 'lsid.id' is missing
            {lsid: {id: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}, x: 1}} | 40415 | 'lsid.x' is an unknown field
            {txnNumber: {$numberLong: '1'}}                                                | 72    | Transaction number requires a session ID to also be specified
            {lsid: {id: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}}, txnNumber: 'a'} | 14 | 'txnNumber' must be a long
            {lsid: {id: {$binary: {base64: 'AAECAwQFBgcICQoLDA0ODw==', subType: '04'}}}, txnNumber: -1} | 2  | must not be negative
            """)
    void badSessionFieldsAreRefusedNamingThem(String command, int code, String message) {
        assertThatThrownBy(() -> OperationSessionInfo.of(ExtendedJson.parse(command)))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @Test
    void aTxnNumberMakesARetryableWrite() {
        assertThat(OperationSessionInfo.of(new BsonDocument())).isEmpty();
        assertThat(OperationSessionInfo.of(ExtendedJson.parse("{lsid: {id: " + ID + "}}")).orElseThrow().isRetryable()).isFalse();
        OperationSessionInfo info = OperationSessionInfo.of(ExtendedJson.parse("{lsid: {id: " + ID + "}, txnNumber: {$numberLong: '9'}}")).orElseThrow();
        assertThat(info.isRetryable()).isTrue();
        assertThat(info.txnNumber()).isEqualTo(9L);
    }

    @Test
    void statementIdsAreIndexesOrOffsetsOrTheClientsOwn() {
        assertThat(StatementIds.parse(new BsonDocument()).of(3)).containsExactly(0, 1, 2);
        assertThat(StatementIds.parse(ExtendedJson.parse("{stmtId: 5}")).of(3)).containsExactly(5, 6, 7);
        assertThat(StatementIds.parse(ExtendedJson.parse("{stmtIds: [4, 9, 2]}")).of(3)).containsExactly(4, 9, 2);
        assertThat(StatementIds.toBson(new int[] {4, 9})).isEqualTo(ExtendedJson.parse("{a: [4, 9]}").getArray("a"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {stmtIds: [1]}            | 16 | 'stmtIds' has 1 ids for 2 statements
            {stmtIds: 1}              | 14 | 'stmtIds' must be an array
            {stmtIds: [1, 'a']}       | 14 | 'stmtIds.1' must be an int
            {stmtIds: [1, -2]}        | 2  | 'stmtIds.1' must not be negative
            {stmtId: 1, stmtIds: [1, 2]} | 72 | cannot both be given
            """)
    void badStatementIdsAreRefused(String command, int code, String message) {
        assertThatThrownBy(() -> StatementIds.parse(ExtendedJson.parse(command)).of(2))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.ofNumber(code)));
    }
}
