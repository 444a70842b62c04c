package dev.shardstore.support.parameter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Map;
import org.bson.BsonBoolean;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class ServerParametersTest {
    @Test
    void startUpValuesAreTextUnderTheirNamesInAnyCase() {
        ServerParameters parameters = new ServerParameters(Map.of("internalquerymaxblockingsortmemoryusagebytes", "1048576",
                "allowDiskUseByDefault", "false"));
        assertThat(parameters.longValue(ServerParameters.SORT_MEMORY)).isEqualTo(1_048_576);
        assertThat(parameters.booleanValue(ServerParameters.ALLOW_DISK_USE_BY_DEFAULT)).isFalse();
        assertThat(parameters.longValue(ServerParameters.GROUP_MEMORY)).isEqualTo(100L * 1024 * 1024);
    }

    @Test
    void aBadStartUpValueOrNameFailsTheStart() {
        assertThatThrownBy(() -> new ServerParameters(Map.of("nope", "1"))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidOptions));
        assertThatThrownBy(() -> new ServerParameters(Map.of("allowDiskUseByDefault", "maybe"))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
        assertThatThrownBy(() -> new ServerParameters(Map.of("internalQueryMaxOpenCursors", "0"))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
    }

    @Test
    void valuesAreCheckedAndStoredInTheirType() {
        ServerParameters parameters = new ServerParameters(Map.of());
        assertThat(parameters.set("internalDocumentSourceGroupMaxMemoryBytes", new BsonInt32(4096))).isEqualTo(new BsonInt64(100L * 1024 * 1024));
        assertThat(parameters.set("internalDocumentSourceGroupMaxMemoryBytes", new BsonDouble(8192.0))).isEqualTo(new BsonInt64(4096));
        assertThat(parameters.longValue(ServerParameters.GROUP_MEMORY)).isEqualTo(8192);
        assertThatThrownBy(() -> parameters.set("internalDocumentSourceGroupMaxMemoryBytes", new BsonDouble(1.5)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
        assertThatThrownBy(() -> parameters.set("allowDiskUseByDefault", new BsonString("true")))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue));
        assertThat(parameters.longValue(ServerParameters.GROUP_MEMORY)).as("a refused value changes nothing").isEqualTo(8192);
        parameters.set("allowDiskUseByDefault", BsonBoolean.FALSE);
        assertThat(parameters.booleanValue(ServerParameters.ALLOW_DISK_USE_BY_DEFAULT)).isFalse();
    }

    @Test
    void theCommandsShapes() {
        ServerParameters parameters = new ServerParameters(Map.of());
        assertThat(parameters.set(ExtendedJson.parse("{setParameter: 1, internalQueryMaxOpenCursors: 50, comment: 'c', $db: 'admin'}")))
                .isEqualTo(ExtendedJson.parse("{was: {$numberLong: '10000'}}"));
        assertThat(parameters.get(ExtendedJson.parse("{getParameter: 1, internalQueryMaxOpenCursors: 1, unknown: 1}"), Map.of()))
                .isEqualTo(ExtendedJson.parse("{internalQueryMaxOpenCursors: {$numberLong: '50'}}"));
        assertThat(parameters.get(ExtendedJson.parse("{getParameter: '*'}"), Map.of("featureCompatibilityVersion", new BsonString("x"))).keySet())
                .startsWith("featureCompatibilityVersion").hasSize(ServerParameters.CATALOG.size() + 1);
        assertThatThrownBy(() -> parameters.set(ExtendedJson.parse("{setParameter: 1}"))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidOptions));
        assertThatThrownBy(() -> parameters.get(ExtendedJson.parse("{getParameter: 1, unknown: 1}"), Map.of()))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.InvalidOptions));
    }
}
