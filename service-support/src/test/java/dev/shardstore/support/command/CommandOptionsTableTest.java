package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The option table's own rules (the per-command walk against real commands is the shard's CommandOptionsTest) and
 * docs/command-options.md, which must show the table as it is.
 */
class CommandOptionsTableTest {
    private static final Path DOC = Path.of("..", "docs", "command-options.md");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {find: 'c', foo: 1}                                            | 40415 | BSON field 'find.foo' is an unknown field.
            {update: 'c', updates: [{q: {}, u: {}, foo: 1}]}                | 40415 | BSON field 'update.updates.foo' is an unknown field.
            {update: 'c', updates: [{q: {}, u: {}, collation: {locale: 'xx'}}]} | 2 | Field 'locale' is invalid with value: xx
            {findAndModify: 'c', remove: true, collation: {locale: 'en', bogus: 1}} | 40415 | BSON field 'findAndModify.collation.bogus' is an unknown field.
            {find: 'c', collation: {locale: 'simple', strength: 1}}        | 2     | If locale is 'simple', then the collation must not contain any other fields
            {find: 'c', collation: {locale: 'xx_YY'}}                      | 2     | Field 'locale' is invalid with value: xx_YY
            {count: 'c', collation: {locale: 'en', strength: 9}}           | 2     | Field 'strength' must be an integer 1 through 5
            {distinct: 'c', key: 'a', collation: {locale: 'en', foo: 1}}   | 40415 | BSON field 'distinct.collation.foo' is an unknown field.
            {aggregate: 'c', pipeline: [], cursor: {}, collation: {locale: 'xx'}} | 2 | Field 'locale' is invalid with value: xx
            {aggregate: 'c', pipeline: [], cursor: {}, collation: {locale: 'en', numericOrdering: 1}} | 14 | BSON field 'aggregate.collation.numericOrdering' is the wrong type
            {find: 'c', writeConcern: {w: 1, foo: 1}}                      | 40415 | BSON field 'find.writeConcern.foo' is an unknown field.
            {find: 'c', $db: 'other'}                                      | 72    | option 'find.$db' names "other" but the command was sent to database db
            {explain: {count: 'c', bar: 1}}                                | 40415 | BSON field 'count.bar'
            {createIndexes: 'c', indexes: [{key: {a: 1}, name: 'a', x: 1}]} | 197  | The field 'x' is not valid for an index specification
            {findandmodify: 'c', remove: true, maxTimeMS: -1}              | 2     | 'findandmodify.maxTimeMS' must be a whole number
            """)
    void refusesNamingTheField(String command, int code, String message) {
        assertThatThrownBy(() -> CommandOptions.check("db", ExtendedJson.parse(command)))
                .isInstanceOf(CommandException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(code));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {find: 'c', filter: {}, collation: {locale: 'simple'}, $db: 'db', comment: 'x', lsid: {id: {$binary: {base64: 'AAAAAAAAAAAAAAAAAAAAAA==', subType: '04'}}}}
            {listCollections: 1, anything: 1}
            {find: 'c', collation: {locale: 'fr', strength: 1, caseLevel: true, caseFirst: 'upper', numericOrdering: true, alternate: 'shifted', maxVariable: 'space', normalization: true, backwards: true}}
            {count: 'c', collation: {locale: 'en_US', strength: 2}}
            {aggregate: 'c', pipeline: [], cursor: {}, collation: {locale: 'en', strength: 2}}
            {explain: {aggregate: 'c', pipeline: [], cursor: {}, collation: {locale: 'fr', numericOrdering: true}}}
            {insert: 'c', documents: [], writeConcern: {w: 'majority', j: true, wtimeout: 5}, ordered: false}
            {delete: 'c', deletes: [{q: {}, limit: 0, hint: 'a_1', collation: {locale: 'simple'}}], let: {x: 1}}
            {delete: 'c', deletes: [{q: {}, limit: 0, collation: {locale: 'fr', strength: 1}}]}
            {update: 'c', updates: [{q: {}, u: {}, collation: {locale: 'en', strength: 2}}]}
            {findAndModify: 'c', remove: true, collation: {locale: 'en', numericOrdering: true}}
            """)
    void accepts(String command) {
        CommandOptions.check("db", ExtendedJson.parse(command));
    }

    /** Drivers send {@code capped: false} with every createCollection; only a capped collection is refused. */
    @Test
    void createTakesCappedFalseAndRefusesCappedTrue() {
        CommandOptions.check("db", ExtendedJson.parse("{create: 'c', capped: false}"));
        assertThatThrownBy(() -> CommandOptions.check("db", ExtendedJson.parse("{create: 'c', capped: true, size: 4096}")))
                .isInstanceOf(CommandException.class).hasMessageContaining("create.capped")
                .satisfies(e -> assertThat(((CommandException) e).code().code()).isEqualTo(238));
    }

    @Test
    void theDocumentationShowsTheTable() throws IOException {
        if (Boolean.getBoolean("regenerate.command-options")) { // -Dregenerate.command-options=true rewrites the tables after a change
            String doc = Files.readString(DOC);
            Files.writeString(DOC, doc.substring(0, doc.indexOf("\n### Every command")) + render(CommandOptions.table()));
        }
        assertThat(Files.readString(DOC)).as("docs/command-options.md: regenerate the tables from CommandOptions.table()")
                .contains(render(CommandOptions.table()));
    }

    /** The markdown of the table, as docs/command-options.md holds it. */
    static String render(Map<String, Map<String, CommandOptions.Option>> table) {
        StringBuilder out = new StringBuilder();
        table.forEach((command, options) -> {
            out.append("\n### ").append(command.equals("*") ? "Every command (generic arguments)" : "`" + command + "`").append("\n\n");
            out.append("| option | treatment | what happens |\n| --- | --- | --- |\n");
            options.values().forEach(o -> out.append("| `").append(o.name()).append("` | ").append(o.treatment().name().toLowerCase())
                    .append(" | ").append(o.note().isEmpty() ? "as MongoDB documents it" : o.note().replace("|", "\\|")).append(" |\n"));
        });
        return out.toString();
    }
}
