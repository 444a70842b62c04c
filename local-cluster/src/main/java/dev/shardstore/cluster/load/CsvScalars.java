package dev.shardstore.cluster.load;

import java.util.regex.Pattern;
import tools.jackson.core.JsonGenerator;

/**
 * Types CSV fields: a field written as an integer becomes an int (or a long when it does not fit 32
 * bits), one written as a decimal (with a fraction or an exponent) becomes a double, anything else
 * stays a string. Numbers with a leading zero ({@code 007}, ZIP codes such as {@code 01234}), a plus
 * sign, surrounding spaces, or too many digits for a long stay strings, so that identifiers keep
 * their exact text.
 */
public final class CsvScalars {
    private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");
    private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

    private CsvScalars() {}

    /** The typed value of a field: an {@link Integer}, {@link Long}, {@link Double} or the {@link String} itself. */
    public static Object parse(String field) {
        if (INTEGER.matcher(field).matches()) {
            try {
                long value = Long.parseLong(field);
                return value == (int) value ? (Object) (int) value : (Object) value;
            } catch (NumberFormatException tooLong) {
                return field;
            }
        }
        if (DECIMAL.matcher(field).matches()) {
            double value = Double.parseDouble(field);
            return Double.isFinite(value) ? value : field;
        }
        return field;
    }

    /** Writes the typed value of {@code field}. */
    static void write(JsonGenerator out, String field) {
        switch (parse(field)) {
            case Integer i -> out.writeNumber(i);
            case Long l -> out.writeNumber(l);
            case Double d -> out.writeNumber(d);
            default -> out.writeString(field);
        }
    }
}
