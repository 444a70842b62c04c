package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * The router's session commands over its logical session cache (the session service is not running here, so nothing
 * is refreshed): {@code startSession} and any command's {@code lsid} place a session in the cache, {@code
 * $listLocalSessions} lists it, {@code endSessions}/{@code killSessions} take it out, and a cursor opened under a
 * session dies with it. Bad session ids are refused naming the field.
 */
class SessionCommandsTest extends RouterAgainstFakeCluster {
    private static String lsid(BsonDocument startSessionReply) {
        return startSessionReply.getDocument("id").toJson();
    }

    private List<String> localSessions() throws Exception {
        Reply reply = command("admin", "{aggregate: 1, pipeline: [{$listLocalSessions: {}}], cursor: {}}");
        reply.assertOk();
        return reply.body().getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument().getDocument("_id").toJson()).toList();
    }

    @Test
    void startedAndUsedSessionsAreListedUntilEndedOrKilled() throws Exception {
        Reply started = command("admin", "{startSession: 1}");
        started.assertOk();
        assertThat(started.body().getInt32("timeoutMinutes").getValue()).isEqualTo(30);
        String a = lsid(started.body());
        String b = "{\"id\": {\"$binary\": {\"base64\": \"" + java.util.Base64.getEncoder().encodeToString(new byte[16]) + "\", \"subType\": \"04\"}}}";
        command("sessions_db", "{find: 'c', filter: {}, lsid: " + b + "}").assertOk();

        assertThat(localSessions()).contains(a, b);

        command("admin", "{endSessions: [" + a + "]}").assertOk();
        command("admin", "{killSessions: [" + b + "]}").assertOk();
        assertThat(localSessions()).doesNotContain(a, b);
    }

    @Test
    void aCursorOpenedUnderASessionIsKilledWithIt() throws Exception {
        String owner = lsid(command("admin", "{startSession: 1}").body());
        for (int i = 0; i < 3; i++) {
            command("admin", "{startSession: 1}").assertOk();
        }
        Reply opened = command("admin", "{aggregate: 1, pipeline: [{$listLocalSessions: {}}], cursor: {batchSize: 1}, lsid: " + owner + "}");
        opened.assertOk();
        long id = opened.body().getDocument("cursor").getNumber("id").longValue();
        assertThat(id).isNotZero();
        command("admin", "{getMore: " + id + ", collection: '$cmd.aggregate', batchSize: 1}").assertOk();

        command("admin", "{killSessions: [" + owner + "]}").assertOk();

        Reply afterKill = command("admin", "{getMore: " + id + ", collection: '$cmd.aggregate', batchSize: 1}");
        assertThat(afterKill.body().getInt32("code").getValue()).as(afterKill.body().toJson()).isEqualTo(43);
    }

    @Test
    void listSessionStagesCheckTheirNamespaceAndSpecification() throws Exception {
        command("admin", "{aggregate: 'c', pipeline: [{$listLocalSessions: {}}], cursor: {}}").assertError(400, 73, "$listLocalSessions");
        command("admin", "{aggregate: 1, pipeline: [{$listLocalSessions: {bogus: 1}}], cursor: {}}").assertError(400, 9, "bogus");
        assertThat(command("admin", "{aggregate: 1, pipeline: [{$match: {}}, {$listLocalSessions: {}}], cursor: {}}").status()).isEqualTo(400);
        Reply byUser = command("admin", "{aggregate: 1, pipeline: [{$listLocalSessions: {users: [{user: 'u', db: 'admin'}]}}], cursor: {}}");
        byUser.assertOk();
        assertThat(byUser.body().getDocument("cursor").getArray("firstBatch")).as("no session has a user without authentication").isEmpty();
        command("x", "{find: 'c', lsid: {id: 5}}").assertError(400, 14, "lsid.id");
        command("admin", "{endSessions: 'nope'}").assertError(400, 14, "endSessions");
    }
}
