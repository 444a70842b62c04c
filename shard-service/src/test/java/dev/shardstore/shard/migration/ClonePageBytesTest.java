package dev.shardstore.shard.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.StoredDocument;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The framing of a {@code _migrateClone} page: stored rows in, the same rows out, and a damaged page refused. */
class ClonePageBytesTest {
    private static final List<StoredDocument> ROWS = List.of(
            StoredDocument.of(ExtendedJson.parse("{_id: 1, x: 'a'}")),
            StoredDocument.of(ExtendedJson.parse("{_id: 'two', x: {nested: [1, 2, 3]}}")),
            StoredDocument.of(ExtendedJson.parse("{_id: {$oid: '65a000000000000000000001'}}")));

    @Test
    void rowsComeBackAsTheyWentInWithTheirIdKeyStrings() {
        List<StoredDocument> back = ClonePageBytes.decode(ClonePageBytes.encode(ROWS), ROWS.size());
        assertThat(back).hasSize(3);
        for (int i = 0; i < ROWS.size(); i++) {
            assertThat(back.get(i).id()).isEqualTo(ROWS.get(i).id());
            assertThat(back.get(i).bson()).isEqualTo(ROWS.get(i).bson());
        }
        assertThat(ClonePageBytes.decode(ClonePageBytes.encode(List.of()), 0)).isEmpty();
    }

    @Test
    void aPageCutShortOrNotHoldingItsCountIsUnreadable() {
        byte[] frames = ClonePageBytes.encode(ROWS);
        assertThatThrownBy(() -> ClonePageBytes.decode(Arrays.copyOf(frames, frames.length - 3), ROWS.size()))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable))
                .hasMessageContaining("ends inside a document (2 whole ones)");
        assertThatThrownBy(() -> ClonePageBytes.decode(frames, 4))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable))
                .hasMessageContaining("says it holds 4 documents");
    }
}
