package dev.shardstore.resharding.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.resharding.coordinator.ReshardingRequest;
import org.junit.jupiter.api.Test;

/** reshardCollection's fields: what is taken, and each option this version does not implement refused by name. */
class ReshardingCommandsTest {
    @Test
    void takesTheImplementedFields() {
        ReshardingRequest request = ReshardingCommands.parse(ExtendedJson.parse("""
                {reshardCollection: "geo.cities", key: {country: 1, name: 1}, unique: false, numInitialChunks: 6,
                 collation: {locale: "simple"}, forceRedistribution: true, maxTimeMS: 1000}"""));
        assertThat(request.namespace().full()).isEqualTo("geo.cities");
        assertThat(request.key().toJson()).isEqualTo("{\"country\": 1, \"name\": 1}");
        assertThat(request.numInitialChunks()).isEqualTo(6);
        assertThat(request.forceRedistribution()).isTrue();
        assertThat(ReshardingCommands.parse(ExtendedJson.parse("{reshardCollection: \"a.b\", key: {x: 1}}")).numInitialChunks()).isZero();
    }

    @Test
    void refusesWhatItDoesNotImplementNamingTheOption() {
        refused("{reshardCollection: \"a.b\", key: {x: 1}, unique: true}", ErrorCode.NotImplemented, "unique");
        refused("{reshardCollection: \"a.b\", key: {x: 1}, collation: {locale: \"fr\"}}", ErrorCode.NotImplemented, "collation");
        refused("{reshardCollection: \"a.b\", key: {x: 1}, zones: []}", ErrorCode.NotImplemented, "zones");
        refused("{reshardCollection: \"a.b\", key: {x: 1}, shardDistribution: []}", ErrorCode.InvalidOptions, "shardDistribution");
        refused("{reshardCollection: \"a.b\", key: {x: 1}, numInitialChunks: 0}", ErrorCode.BadValue, "numInitialChunks");
        refused("{reshardCollection: \"a.b\", key: {}}", ErrorCode.BadValue, "key");
    }

    private static void refused(String json, ErrorCode code, String named) {
        assertThatThrownBy(() -> ReshardingCommands.parse(ExtendedJson.parse(json))).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(named);
        });
    }
}
