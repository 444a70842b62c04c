package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.support.operation.Caller;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An aggregate with {@code $out} or {@code $merge} under each read concern level, through the registry that every
 * router and shard command passes (its read concern parsed by {@code ReadConcern.of}): linearizable is MongoDB's
 * InvalidOptions (72), before the handler runs; the others are what any aggregate gets.
 */
class WriteStageReadConcernTest {
    private final AtomicInteger ran = new AtomicInteger();
    private final CommandRegistry registry = new CommandRegistry(List.of(CommandHandler.of("aggregate", (db, command) -> {
        ran.incrementAndGet();
        return new BsonDocument("ok", new BsonInt32(1));
    })));

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {$out: 'o'}                     | linearizable | 72
            {$merge: {into: 'o'}}           | linearizable | 72
            {$out: 'o'}                     | snapshot     | 72
            {$merge: {into: 'o'}}           | snapshot     | 72
            {$out: 'o'}                     | local        | 0
            {$out: 'o'}                     | available    | 0
            {$out: 'o'}                     | majority     | 0
            {$merge: {into: 'o'}}           | majority     | 0
            {$match: {}}                    | linearizable | 238
            """)
    void eachReadConcernLevel(String lastStage, String level, int code) {
        BsonDocument command = ExtendedJson.parse("{aggregate: 'c', pipeline: [{$match: {a: 1}}, " + lastStage + "], cursor: {},"
                + " readConcern: {level: '" + level + "'}}");
        if (code == 0) {
            assertThat(registry.run(Caller.peer(), "db", command).getNumber("ok").intValue()).isOne();
            assertThat(ran).hasValue(1);
            return;
        }
        assertThatThrownBy(() -> registry.run(Caller.peer(), "db", command))
                .isInstanceOf(CommandException.class)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
        assertThat(ran).hasValue(0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            $out   | {$out: 'o'}
            $merge | {$merge: {into: 'o', whenMatched: 'replace'}}
            """)
    void theMessageIsMongoDbs(String stage, String spec) {
        assertThatThrownBy(() -> registry.run(Caller.peer(), "db", ExtendedJson.parse(
                "{aggregate: 'c', pipeline: [" + spec + "], cursor: {}, readConcern: {level: 'linearizable'}}")))
                .hasMessage(stage + " cannot be used with a 'linearizable' read concern level");
    }
}
