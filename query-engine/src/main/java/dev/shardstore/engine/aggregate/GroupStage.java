package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.Expression;
import dev.shardstore.engine.aggregate.expression.ExpressionParser;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.Variables;
import dev.shardstore.engine.spill.BsonSizes;
import dev.shardstore.engine.spill.ExternalSorter;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * {@code {$group: {_id: <expression>, <field>: {<accumulator>: <expression>}, ...}}} (MongoDB manual,
 * "$group"): one output document per distinct {@code _id} value, with each field computed by its
 * {@link Accumulators accumulator}. {@code _id} may be any expression, including an object expression for a
 * compound key ({@code {_id: {y: {$year: "$d"}, m: "$m"}}}); missing counts as null and keys are grouped by BSON
 * equality (so 1 and 1.0 are one group, keeping the first value seen), strings by equality under the command's
 * collation (at strength 2, "a" and "A" are one group whose {@code _id} is the first seen, as in MongoDB). Groups
 * come out in BSON order of their keys (MongoDB leaves the order unspecified).
 *
 * <p>Memory: the groups' keys and accumulator states count against the group budget of the command's {@link MemoryLimits}
 * ({@link Accumulators.State#bytes()}). Over it without {@code allowDiskUse}: QueryExceededMemoryLimitNoDiskUseAllowed
 * (292), MongoDB's message. With it, the groups held so far stay in memory and keep accumulating their own documents,
 * and the documents of every new key go, with their key, to an {@link ExternalSorter} sorted by key; at the end its
 * output is grouped one key at a time and merged in key order with the held groups, so the answer and its order are
 * the in-memory ones. (A held group that keeps growing, a {@code $push} of a huge group, is not bounded.)
 *
 * <p>Errors: BadValue (2) {@code "a group specification must include an _id"}, a field that is not a one-operator
 * document ({@code "The field 'total' must be an accumulator object"}), a dotted field name;
 * InvalidPipelineOperator (168) for an unknown accumulator.
 */
final class GroupStage implements Stage {
    private record Field(String name, Supplier<Accumulators.State> factory, Expression argument) {}

    /** The fields of a spilled record: the document's group key and the document. */
    private static final String SPILLED_KEY = "k";
    private static final String SPILLED_DOCUMENT = "d";

    private final Expression id;
    private final List<Field> fields;
    private final CommandVariables variables;
    private final MemoryLimits limits;
    private final SpillStats stats = new SpillStats();

    private GroupStage(Expression id, List<Field> fields, CommandVariables variables, MemoryLimits limits) {
        this.id = id;
        this.fields = fields;
        this.variables = variables;
        this.limits = limits;
    }

    static Stage parse(BsonDocument spec, CommandVariables variables, MemoryLimits limits) {
        if (!spec.containsKey("_id")) {
            throw new CommandException(ErrorCode.BadValue, "a group specification must include an _id");
        }
        List<Field> fields = new ArrayList<>();
        for (Map.Entry<String, BsonValue> entry : spec.entrySet()) {
            String name = entry.getKey();
            if (name.equals("_id")) {
                continue;
            }
            BsonValue value = entry.getValue();
            if (name.contains(".") || !value.isDocument() || value.asDocument().size() != 1) {
                throw new CommandException(ErrorCode.BadValue, "The field '" + name + "' must be an accumulator object");
            }
            String operator = value.asDocument().getFirstKey();
            BsonValue argument = value.asDocument().values().iterator().next(); // the accumulator's argument
            if (operator.equals("$count")) {
                if (!argument.isDocument() || !argument.asDocument().isEmpty()) {
                    throw new CommandException(ErrorCode.BadValue, "$count takes no arguments, i.e. $count:{}");
                }
                argument = new BsonInt32(1);
            }
            fields.add(new Field(name, Accumulators.factory(operator, variables.collation()), ExpressionParser.INSTANCE.parse(argument)));
        }
        return new GroupStage(ExpressionParser.INSTANCE.parse(spec.get("_id")), List.copyOf(fields), variables, limits);
    }

    @Override
    public Stream<BsonDocument> apply(Stream<BsonDocument> input) {
        Comparator<BsonValue> keyOrder = (a, b) -> BsonOrder.compare(a, b, variables.collation());
        TreeMap<BsonValue, Map<String, Accumulators.State>> groups = new TreeMap<>(keyOrder);
        ExternalSorter spilled = null;
        long bytes = 0;
        try (input) {
            long read = 0;
            for (Iterator<BsonDocument> documents = input.iterator(); documents.hasNext(); ) {
                BsonDocument doc = documents.next();
                if (++read % ExternalSorter.CHECK_INTERVAL == 0) {
                    limits.interruption().check(); // a killed $group stops (its spill files go below)
                }
                Variables scope = variables.scope(doc);
                BsonValue evaluated = id.evaluate(scope);
                BsonValue key = evaluated == null ? BsonNull.VALUE : evaluated;
                Map<String, Accumulators.State> states = groups.get(key);
                if (states == null && spilled != null) {
                    // a new group once over budget: its documents are sorted by key on disk and grouped at the end
                    spilled.add(new BsonDocument(SPILLED_KEY, key).append(SPILLED_DOCUMENT, doc));
                    continue;
                }
                if (states == null) {
                    states = fresh();
                    groups.put(key, states);
                    bytes += BsonSizes.of(key) + states.values().stream().mapToLong(Accumulators.State::bytes).sum();
                }
                bytes += accumulate(states, scope);
                if (bytes > limits.groupBytes() && spilled == null) {
                    if (!limits.allowDiskUse()) {
                        throw new CommandException(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed, "Exceeded memory limit for $group,"
                                + " but didn't allow external sort. Pass allowDiskUse:true to opt in.");
                    }
                    spilled = new ExternalSorter("$group", Comparator.comparing(d -> d.get(SPILLED_KEY), keyOrder), Long.MAX_VALUE,
                            limits.groupBytes(), limits.spill(), stats, limits.interruption(), limits.pool());
                }
            }
        } catch (RuntimeException | Error e) { // an OutOfMemoryError too: the spill files go, whatever ends the read
            if (spilled != null) {
                spilled.close();
            }
            throw e;
        }
        Stream<BsonDocument> held = groups.entrySet().stream().map(group -> output(group.getKey(), group.getValue()));
        if (spilled == null) {
            return held;
        }
        Stream<BsonDocument> sorted = spilled.sorted();
        Iterator<BsonDocument> merged = mergeByKey(groups.keySet().iterator(), held.iterator(), regroup(sorted.iterator(), keyOrder), keyOrder);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(merged, Spliterator.ORDERED), false).onClose(sorted::close);
    }

    /** New states, one per field. */
    private Map<String, Accumulators.State> fresh() {
        Map<String, Accumulators.State> states = new LinkedHashMap<>();
        fields.forEach(f -> states.put(f.name(), f.factory().get()));
        return states;
    }

    /** Adds a document's values to its group's states; returns by how many bytes they grew. */
    private long accumulate(Map<String, Accumulators.State> states, Variables scope) {
        long grown = 0;
        for (Field f : fields) {
            // every group's states are made from the same fields, so each field finds its state
            Accumulators.State state = Objects.requireNonNull(states.get(f.name()));
            long before = state.bytes();
            state.add(f.argument().evaluate(scope));
            grown += state.bytes() - before;
        }
        return grown;
    }

    private static BsonDocument output(BsonValue key, Map<String, Accumulators.State> states) {
        BsonDocument group = new BsonDocument("_id", key);
        states.forEach((name, state) -> group.put(name, state.result()));
        return group;
    }

    /**
     * The groups of spilled documents sorted by key (stably, so each group sees its documents in arrival order): one
     * group in memory at a time, its {@code _id} the first key seen, as in memory.
     */
    private Iterator<BsonDocument> regroup(Iterator<BsonDocument> sorted, Comparator<BsonValue> keyOrder) {
        return new Iterator<>() {
            private @Nullable BsonDocument next = sorted.hasNext() ? sorted.next() : null;

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public BsonDocument next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                BsonValue key = Objects.requireNonNull(next.get(SPILLED_KEY));
                Map<String, Accumulators.State> states = fresh();
                while (next != null && keyOrder.compare(next.get(SPILLED_KEY), key) == 0) {
                    accumulate(states, variables.scope(next.getDocument(SPILLED_DOCUMENT)));
                    next = sorted.hasNext() ? sorted.next() : null;
                }
                return output(key, states);
            }
        };
    }

    /**
     * The groups held in memory ({@code heldKeys} and their outputs, in key order) and those regrouped from disk, merged in
     * key order; no key is in both.
     */
    private static Iterator<BsonDocument> mergeByKey(Iterator<BsonValue> heldKeys, Iterator<BsonDocument> held, Iterator<BsonDocument> fromDisk,
            Comparator<BsonValue> keyOrder) {
        return new Iterator<>() {
            private @Nullable BsonDocument memory = held.hasNext() ? held.next() : null;
            private @Nullable BsonDocument disk = fromDisk.hasNext() ? fromDisk.next() : null;

            @Override
            public boolean hasNext() {
                return memory != null || disk != null;
            }

            @Override
            public BsonDocument next() {
                BsonDocument out;
                if (disk == null || memory != null && keyOrder.compare(memory.get("_id"), disk.get("_id")) < 0) {
                    out = memory;
                    memory = held.hasNext() ? held.next() : null;
                } else {
                    out = disk;
                    disk = fromDisk.hasNext() ? fromDisk.next() : null;
                }
                if (out == null) {
                    throw new NoSuchElementException();
                }
                return out;
            }
        };
    }
}
