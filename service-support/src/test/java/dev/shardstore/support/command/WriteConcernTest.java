package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link WriteConcern}: what one copy per shard satisfies, and MongoDB's errors for what it cannot. */
class WriteConcernTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {insert: 'c'}                                                   | false
            {insert: 'c', writeConcern: {}}                                 | false
            {insert: 'c', writeConcern: {w: 0}}                             | false
            {insert: 'c', writeConcern: {w: 1, wtimeout: 0}}                | false
            {insert: 'c', writeConcern: {w: 'majority', wtimeout: 5000}}    | false
            {insert: 'c', writeConcern: {w: 1.0, j: false, provenance: 'clientSupplied'}} | false
            {insert: 'c', writeConcern: {w: 'majority', j: true}}           | true
            {insert: 'c', writeConcern: {j: 1}}                             | true
            {insert: 'c', writeConcern: {fsync: true}}                      | true
            """)
    void acceptsWhatOneCopySatisfies(String command, boolean journaled) {
        assertThat(WriteConcern.of(ExtendedJson.parse(command)).journaled()).isEqualTo(journaled);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {insert: 'c', writeConcern: {w: 2}}               | 100   | Not enough data-bearing nodes: insert.writeConcern.w 2
            {update: 'c', writeConcern: {w: 3, j: true}}      | 100   | update.writeConcern.w 3
            {insert: 'c', writeConcern: {w: 'dc1'}}           | 79    | No write concern mode named 'dc1' found in replica set configuration
            {insert: 'c', writeConcern: {w: -1}}              | 9     | 'insert.writeConcern.w' must be a whole number
            {insert: 'c', writeConcern: {w: 1.5}}             | 9     | 'insert.writeConcern.w' must be a whole number
            {insert: 'c', writeConcern: {w: true}}            | 14    | 'insert.writeConcern.w' must be a number or a string
            {insert: 'c', writeConcern: {j: 'yes'}}           | 14    | 'insert.writeConcern.j' must be a boolean
            {insert: 'c', writeConcern: {wtimeout: 'soon'}}   | 14    | 'insert.writeConcern.wtimeout' must be a number
            {insert: 'c', writeConcern: {wtimeout: -5}}       | 9     | 'insert.writeConcern.wtimeout' must not be negative
            {insert: 'c', writeConcern: 1}                    | 14    | 'insert.writeConcern' must be a document
            {insert: 'c', writeConcern: {w: 1, wmode: 1}}     | 40415 | BSON field 'insert.writeConcern.wmode' is an unknown field.
            """)
    void refusesWhatItCannotSatisfyNamingTheField(String command, int code, String message) {
        assertThatThrownBy(() -> WriteConcern.of(ExtendedJson.parse(command)))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {insert: 'c', documents: [], writeConcern: {w: 2}}          | 100
            {delete: 'c', deletes: [], writeConcern: {w: 'east'}}       | 79
            """)
    void theCommandTableRefusesThemBeforeTheCommandRuns(String command, int code) {
        assertThatThrownBy(() -> CommandOptions.check("db", ExtendedJson.parse(command)))
                .isInstanceOf(CommandException.class)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }
}
