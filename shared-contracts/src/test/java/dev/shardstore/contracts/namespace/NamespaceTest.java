package dev.shardstore.contracts.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class NamespaceTest {
    @Test
    void acceptsOrdinaryNames() {
        assertThat(new Namespace("geo", "cities.europe").full()).isEqualTo("geo.cities.europe");
    }

    @Test
    void parsingSplitsAtTheFirstDotAndNeedsBothParts() {
        assertThat(Namespace.parse("geo.cities.v2")).isEqualTo(new Namespace("geo", "cities.v2"));
        assertThatThrownBy(() -> Namespace.parse("cities", "--ns"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidNamespace))
                .hasMessageContaining("'--ns' must be a namespace 'db.collection'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a/b", "a\\b", "a.b", "a b", "a\"b", "a$b", "a\0b",
            "a234567890123456789012345678901234567890123456789012345678901234"})
    void rejectsBadDatabaseNames(String db) {
        assertThatThrownBy(() -> new Namespace(db, "c"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidNamespace));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a$b", "$cmd", "a\0b", ".hidden"})
    void rejectsBadCollectionNames(String collection) {
        assertThatThrownBy(() -> new Namespace("db", collection))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidNamespace));
    }

    @Test
    void rejectsNamespacesOver255Bytes() {
        assertThatThrownBy(() -> new Namespace("db", "c".repeat(253))).isInstanceOf(CommandException.class);
        assertThat(new Namespace("db", "c".repeat(252)).full()).hasSize(255);
    }
}
