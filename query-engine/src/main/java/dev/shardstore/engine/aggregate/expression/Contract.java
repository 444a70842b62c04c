package dev.shardstore.engine.aggregate.expression;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a method's result says about its arguments, in the notation of JetBrains' {@code @Contract} (which Spring's
 * {@code org.springframework.lang.Contract} copies): {@code "null -> true"} on a test means that it answers true for a
 * null argument, so when it answers false the argument is not null. NullAway reads it (the build names it with
 * {@code CustomContractAnnotations}), so a caller that has tested a value with {@link Operands#nullish} or
 * {@link Numbers#isNumber} may use it without a second null check.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Contract {
    /** The clauses, e.g. {@code "null -> false"}. */
    String value();
}
