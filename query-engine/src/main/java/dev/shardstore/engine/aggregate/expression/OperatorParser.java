package dev.shardstore.engine.aggregate.expression;

import org.bson.BsonValue;

/** Parses the argument of one expression operator ({@code {$op: <argument>}}) into an {@link Expression}. */
@FunctionalInterface
interface OperatorParser {
    Expression parse(String name, BsonValue argument, ExpressionParser parser);
}
