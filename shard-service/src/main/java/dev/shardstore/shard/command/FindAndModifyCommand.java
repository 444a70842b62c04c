package dev.shardstore.shard.command;

import dev.shardstore.shard.write.RetryableWrites;
import dev.shardstore.shard.write.FindAndModifier;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.query.Update;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.Set;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonValue;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code findAndModify} (alias {@code findandmodify}): {@code {findAndModify: <coll>, query?, sort?,
 * remove?, update?, new?, fields?, upsert?, arrayFilters?, collation?}} → {@code {lastErrorObject: {n, updatedExisting?, upserted?}, value,
 * ok: 1}}. Removes or updates the first document matching {@code query} in {@code sort} order ({@code _id}
 * order without one) and returns it, before the update or, with {@code new}, after it, projected by
 * {@code fields}; {@code value} is null when nothing matched (or an upsert inserted and {@code new} is false).
 * {@code update} is an operator document, a replacement or a pipeline; {@code let} defines the variables of
 * {@code query}'s {@code $expr} and of the pipeline; {@code hint} picks the index the first match is read through;
 * {@code collation} is how {@code query}, {@code sort}, {@code arrayFilters} and the value-comparing update operators
 * compare strings (as MongoDB's; see {@link Update#parse(BsonValue, java.util.List, CommandVariables, Collation)});
 * with {@code upsert} and no match the update applied to
 * the query's equalities is inserted. {@code lastErrorObject} holds {@code n} (0 or 1) and, for updates,
 * {@code updatedExisting} and the {@code upserted} {@code _id}. See {@link FindAndModifier}.
 *
 * <p>Errors: FailedToParse (9) "Either an update or remove=true must be specified", "Cannot specify both an
 * update and remove=true", "Cannot specify both upsert=true and remove=true", "Cannot specify both new=true and
 * remove=true; 'remove' always returns the deleted document"; the filter's, sort's, projection's and update's
 * errors; the update's errors when applied (ImmutableField ...), which fail the command.
 *
 * <p>With {@code lsid} and {@code txnNumber} it is a retryable write of one statement ({@link RetryableWrites}): a
 * retry of one that ran returns the same {@code lastErrorObject} and {@code value} from the oplog entry and its kept
 * pre-image, without running again.
 */
@Component
public class FindAndModifyCommand extends ShardCommand {
    private final FindAndModifier modifier;
    private final RetryableWrites retryable;
    private final CollectionCatalog catalog;

    public FindAndModifyCommand(CommandInvoker invoker, FindAndModifier modifier, RetryableWrites retryable, CollectionCatalog catalog) {
        super(invoker);
        this.catalog = catalog;
        this.retryable = retryable;
        this.modifier = modifier;
    }

    @Override
    public String name() {
        return "findAndModify";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    @Override
    public Set<String> aliases() {
        return Set.of("findandmodify");
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        boolean remove = args.optionalBoolean(command, "remove", "remove", false);
        boolean returnNew = args.optionalBoolean(command, "new", "new", false);
        boolean upsert = args.optionalBoolean(command, "upsert", "upsert", false);
        BsonValue update = command.get("update");
        if (update != null && update.isNull()) {
            update = null;
        }
        requireConsistent(remove, update != null, returnNew, upsert);
        BsonDocument sortSpec = args.optionalDocument(command, "sort", "sort");
        BsonDocument fields = args.optionalDocument(command, "fields", "fields");
        CommandVariables variables = CommandVariables.parse(command.get("let"), "let");
        BsonDocument query = args.optionalDocument(command, "query", "query");
        Collation collation = CollectionCollation.effective("findAndModify.collation", command.get("collation"), catalog.find(ns));
        FindAndModifier.Request request = new FindAndModifier.Request(query, Filter.parse(query, variables, collation), command.get("hint"),
                sortSpec.isEmpty() ? null : Sort.parse(sortSpec, collation),
                update == null ? null : Update.parse(update, UpdateCommand.arrayFilters(command.get("arrayFilters"), "arrayFilters"),
                        variables, collation),
                returnNew, upsert);
        Projection projection = fields.isEmpty() ? null : Projection.parse(fields);
        FindAndModifier.Outcome outcome = retryable.runOne(opCtx, statementCtx -> modifier.run(statementCtx, ns, request),
                executed -> FindAndModifier.replayed(executed, returnNew));
        BsonDocument lastError = new BsonDocument("n", new BsonInt32(outcome.n()));
        if (!remove) {
            lastError.put("updatedExisting", BsonBoolean.valueOf(outcome.updatedExisting()));
            if (outcome.upsertedId() != null) {
                lastError.put("upserted", outcome.upsertedId());
            }
        }
        BsonValue value = outcome.value() == null ? BsonNull.VALUE
                : projection == null ? outcome.value() : projection.apply(outcome.value(), request.filter());
        return Replies.ok(new BsonDocument("lastErrorObject", lastError).append("value", value));
    }

    private static void requireConsistent(boolean remove, boolean hasUpdate, boolean returnNew, boolean upsert) {
        String problem = null;
        if (remove && hasUpdate) {
            problem = "Cannot specify both an update and remove=true";
        } else if (!remove && !hasUpdate) {
            problem = "Either an update or remove=true must be specified";
        } else if (remove && upsert) {
            problem = "Cannot specify both upsert=true and remove=true";
        } else if (remove && returnNew) {
            problem = "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document";
        }
        if (problem != null) {
            throw new CommandException(ErrorCode.FailedToParse, problem);
        }
    }
}
