package dev.shardstore.shard.view;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * Views (MongoDB manual, "Views") on this shard, the database's primary: a view is an entry of the collection catalog
 * whose options are {@code {viewOn: <name in the same database>, pipeline: [...]}} — as listCollections shows it — so it
 * shares the namespace with collections (one name, one thing), is created and dropped like them, moves with
 * movePrimary's catalog clone and goes with dropDatabase. Its backing table stays empty: every write is refused
 * (CommandNotSupportedOnView, 166) and every read is answered with the resolved view for the router to run
 * ({@link #resolve}).
 *
 * <p>Rules, MongoDB's: {@code viewOn} is a non-empty collection name of the same database (the collection need not
 * exist; it may be another view); the pipeline parses as an aggregation pipeline; a chain of views may be at most
 * {@value #MAX_DEPTH} deep (ViewDepthLimitExceeded, 149) and never loops back (GraphContainsCycle, 93).
 */
@Component
public class ViewCatalog {
    /** MongoDB's maximum depth of a chain of views. */
    public static final int MAX_DEPTH = 20;

    private final CollectionCatalog catalog;

    public ViewCatalog(CollectionCatalog catalog) {
        this.catalog = catalog;
    }

    /** A view's definition: the namespace it reads and its own pipeline. */
    public record ViewDefinition(Namespace viewOn, BsonArray pipeline) {
        public ViewDefinition {
            pipeline = pipeline.clone();
        }

        @Override
        public BsonArray pipeline() {
            return pipeline.clone();
        }
    }

    /** Whether {@code options} (a catalog entry's) define a view. */
    public static boolean isView(BsonDocument options) {
        return options.containsKey("viewOn");
    }

    /** The definition of {@code ns} when it is a view. */
    public Optional<ViewDefinition> find(Namespace ns) {
        return catalog.find(ns).map(CollectionInfo::options).filter(ViewCatalog::isView)
                .map(options -> new ViewDefinition(new Namespace(ns.db(), options.getString("viewOn").getValue()), options.getArray("pipeline")));
    }

    /**
     * The create options of a new view {@code ns}, normalized ({@code pipeline} defaults to {@code []}), after checking
     * them and that the chain they start neither loops nor is too deep.
     *
     * @throws CommandException InvalidOptions (72) for a missing or empty {@code viewOn}, TypeMismatch (14) for a
     *                          {@code viewOn} that is not a string or a {@code pipeline} that is not an array of stages,
     *                          the engine's pipeline errors, GraphContainsCycle (93), ViewDepthLimitExceeded (149)
     */
    public BsonDocument validateNew(Namespace ns, BsonDocument options) {
        BsonValue viewOn = Objects.requireNonNull(options.get("viewOn"), "create checked it is there");
        if (!viewOn.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'create.viewOn' must be a string, not " + viewOn.getBsonType());
        }
        if (viewOn.asString().getValue().isEmpty()) {
            throw new CommandException(ErrorCode.InvalidOptions, "'create.viewOn' cannot be empty");
        }
        BsonValue pipeline = options.get("pipeline", new BsonArray());
        if (!pipeline.isArray() || pipeline.asArray().stream().anyMatch(stage -> !stage.isDocument())) {
            throw new CommandException(ErrorCode.TypeMismatch, "'create.pipeline' must be an array of stage documents");
        }
        Pipeline.parse(pipeline.asArray(), (collection, filter) -> List.of()); // refuses what the engine cannot run
        Namespace source = new Namespace(ns.db(), viewOn.asString().getValue());
        requireAcyclic(ns, source);
        BsonDocument normalized = options.clone();
        normalized.put("viewOn", new BsonString(source.collection()));
        normalized.put("pipeline", pipeline);
        return normalized;
    }

    /**
     * What reading view {@code ns} means: the collection at the end of its chain and the pipelines of the chain,
     * innermost first, then {@code ns}'s own.
     *
     * @return {@code {ns: "<db>.<collection>", pipeline: [...]}}, MongoDB's {@code resolvedView} shape
     * @throws CommandException GraphContainsCycle or ViewDepthLimitExceeded when the chain is broken
     */
    public BsonDocument resolve(Namespace ns) {
        List<ViewDefinition> chain = new ArrayList<>();
        Namespace at = ns;
        for (Optional<ViewDefinition> view = find(at); view.isPresent(); view = find(at)) {
            chain.add(view.get());
            at = view.get().viewOn();
            if (chain.size() > MAX_DEPTH) {
                throw depthExceeded(ns);
            }
            if (at.equals(ns)) {
                throw cycle(ns);
            }
        }
        BsonArray pipeline = new BsonArray();
        for (int i = chain.size() - 1; i >= 0; i--) {
            pipeline.addAll(chain.get(i).pipeline());
        }
        return new BsonDocument("ns", new BsonString(at.full())).append("pipeline", pipeline);
    }

    private void requireAcyclic(Namespace view, Namespace source) {
        List<String> path = new ArrayList<>(List.of(view.full()));
        Namespace at = source;
        while (true) {
            path.add(at.full());
            if (at.equals(view)) {
                throw new CommandException(ErrorCode.GraphContainsCycle, "View cycle detected: " + path);
            }
            if (path.size() > MAX_DEPTH + 1) {
                throw depthExceeded(view);
            }
            Optional<ViewDefinition> next = find(at);
            if (next.isEmpty()) {
                return;
            }
            at = next.get().viewOn();
        }
    }

    private static CommandException depthExceeded(Namespace ns) {
        return new CommandException(ErrorCode.ViewDepthLimitExceeded, "View depth too deep or view cycle detected. Maximum depth is " + MAX_DEPTH
                + ": " + ns.full());
    }

    private static CommandException cycle(Namespace ns) {
        return new CommandException(ErrorCode.GraphContainsCycle, "View cycle detected at " + ns.full());
    }
}
