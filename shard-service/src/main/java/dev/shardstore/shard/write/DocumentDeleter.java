package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.shard.cursor.Match;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.stereotype.Component;

/**
 * Runs one statement of MongoDB's {@code delete}: removes the first matching document ({@code limit: 1})
 * or all of them ({@code limit: 0}), writing a {@code d} oplog entry per removed document.
 */
@Component
public class DocumentDeleter {
    private final CollectionCatalog catalog;
    private final DocumentStore store;
    private final LockedMatches matches;

    DocumentDeleter(CollectionCatalog catalog, DocumentStore store, LockedMatches matches) {
        this.catalog = catalog;
        this.store = store;
        this.matches = matches;
    }

    /**
     * Runs {@code statement} on {@code ns}, its filter under its collation; the caller holds the namespace in shared mode.
     *
     * @param variables the command's variables, for {@code $expr} in {@code q}
     */
    public StatementOutcome delete(OperationContext opCtx, Namespace ns, DeleteStatement statement, CommandVariables variables) {
        try {
            Filter filter = Filter.parse(statement.q(), variables, statement.collation());
            Optional<CollectionInfo> collection = catalog.find(ns);
            LongAdder deleted = new LongAdder();
            collection.ifPresent(c -> matches.forEach(opCtx, c, statement.q(), filter, statement.hint(), statement.justOne(), (inUnit, page) -> {
                deleted.add(store.delete(inUnit, c, page.stream().map(Match::stored).toList()));
                return true;
            }));
            return new StatementOutcome(deleted.sum(), 0, null, null);
        } catch (CommandException e) {
            return StatementOutcome.failed(e);
        }
    }
}
