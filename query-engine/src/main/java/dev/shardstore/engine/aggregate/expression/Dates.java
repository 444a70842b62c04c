package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.TypeNames;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Date expression operators (MongoDB manual, "Date Expression Operators"): {@code $year $month $dayOfMonth
 * $hour} (argument a date expression or {@code {date, timezone?}}), {@code $dateToString: {date, format?,
 * timezone?, onNull?}} (default format {@code %Y-%m-%dT%H:%M:%S.%LZ}; specifiers {@code %Y %m %d %H %M %S %L
 * %j %w %z %Z %%}) and {@code $dateTrunc: {date, unit, binSize?, timezone?, startOfWeek?}} (bins counted from
 * 2000-01-01T00:00 in the time zone, weeks from the first {@code startOfWeek} day, default Sunday). Time
 * zones are Olson names or {@code "+hh:mm"} offsets. A null or missing date gives null.
 *
 * <p>Errors: TypeMismatch (14) for a non-date ({@code "can't convert from BSON type string to Date"}), BadValue
 * (2) for an unknown time zone, unit or format specifier.
 */
final class Dates {
    static final Map<String, OperatorParser> OPERATORS = Map.of(
            "$year", part(ZonedDateTime::getYear),
            "$month", part(ZonedDateTime::getMonthValue),
            "$dayOfMonth", part(ZonedDateTime::getDayOfMonth),
            "$hour", part(ZonedDateTime::getHour),
            "$dateToString", Dates::dateToString,
            "$dateTrunc", Dates::dateTrunc);

    private static final LocalDateTime REFERENCE = LocalDateTime.of(2000, 1, 1, 0, 0);

    private Dates() {}

    private static OperatorParser part(ToIntFunction<ZonedDateTime> field) {
        return (name, arg, parser) -> {
            BsonValue dateArgument = arg.isDocument() ? arg.asDocument().get("date") : null;
            boolean named = dateArgument != null;
            Expression date = parser.parse(dateArgument != null ? dateArgument : arg);
            Expression zone = zone(named ? arg.asDocument() : new BsonDocument(), parser);
            return variables -> {
                ZonedDateTime at = zoned(name, date.evaluate(variables), zone.evaluate(variables));
                return at == null ? BsonNull.VALUE : new BsonInt32(field.applyAsInt(at));
            };
        };
    }

    private static Expression dateToString(String name, BsonValue arg, ExpressionParser parser) {
        BsonDocument named = Operands.named(name, arg);
        Expression date = parser.parse(Operands.required(name, named, "date"));
        Expression format = parser.parse(named.get("format", new BsonString("%Y-%m-%dT%H:%M:%S.%LZ")));
        Expression zone = zone(named, parser);
        Expression onNull = named.containsKey("onNull") ? parser.parse(named.get("onNull")) : variables -> BsonNull.VALUE;
        return variables -> {
            ZonedDateTime at = zoned(name, date.evaluate(variables), zone.evaluate(variables));
            if (at == null) {
                return onNull.evaluate(variables);
            }
            BsonValue pattern = format.evaluate(variables);
            if (pattern == null || !pattern.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "$dateToString requires that 'format' be a string");
            }
            return new BsonString(format(pattern.asString().getValue(), at));
        };
    }

    private static String format(String pattern, ZonedDateTime at) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (++i == pattern.length()) {
                throw new CommandException(ErrorCode.BadValue, "Unmatched '%' at end of format string");
            }
            out.append(switch (pattern.charAt(i)) {
                case 'Y' -> String.format(Locale.ROOT, "%04d", at.getYear());
                case 'm' -> String.format(Locale.ROOT, "%02d", at.getMonthValue());
                case 'd' -> String.format(Locale.ROOT, "%02d", at.getDayOfMonth());
                case 'H' -> String.format(Locale.ROOT, "%02d", at.getHour());
                case 'M' -> String.format(Locale.ROOT, "%02d", at.getMinute());
                case 'S' -> String.format(Locale.ROOT, "%02d", at.getSecond());
                case 'L' -> String.format(Locale.ROOT, "%03d", at.get(ChronoField.MILLI_OF_SECOND));
                case 'j' -> String.format(Locale.ROOT, "%03d", at.getDayOfYear());
                case 'w' -> Integer.toString(at.getDayOfWeek().getValue() % 7 + 1);
                case 'z' -> at.getOffset().getId().equals("Z") ? "+0000" : at.getOffset().getId().replace(":", "");
                case 'Z' -> String.format(Locale.ROOT, "%+d", at.getOffset().getTotalSeconds() / 60);
                case '%' -> "%";
                default -> throw new CommandException(ErrorCode.BadValue, "Invalid format character '%" + pattern.charAt(i)
                        + "' in format string");
            });
        }
        return out.toString();
    }

    private static Expression dateTrunc(String name, BsonValue arg, ExpressionParser parser) {
        BsonDocument named = Operands.named(name, arg);
        Expression date = parser.parse(Operands.required(name, named, "date"));
        Expression unit = parser.parse(Operands.required(name, named, "unit"));
        Expression binSize = parser.parse(named.get("binSize", new BsonInt32(1)));
        Expression startOfWeek = parser.parse(named.get("startOfWeek", new BsonString("sunday")));
        Expression zone = zone(named, parser);
        return variables -> {
            ZonedDateTime at = zoned(name, date.evaluate(variables), zone.evaluate(variables));
            BsonValue unitValue = unit.evaluate(variables);
            BsonValue size = binSize.evaluate(variables);
            if (at == null || Operands.nullish(unitValue) || Operands.nullish(size)) {
                return BsonNull.VALUE;
            }
            if (!Numbers.isNumber(size) || Numbers.toDouble(size) < 1) {
                throw new CommandException(ErrorCode.BadValue, "$dateTrunc requires 'binSize' to be a positive number");
            }
            long bin = (long) Numbers.toDouble(size);
            ZonedDateTime truncated = truncate(at, text(name, "unit", unitValue), bin,
                    text(name, "startOfWeek", startOfWeek.evaluate(variables)));
            return new BsonDateTime(truncated.toInstant().toEpochMilli());
        };
    }

    private static ZonedDateTime truncate(ZonedDateTime at, String unit, long bin, String startOfWeek) {
        ZonedDateTime reference = REFERENCE.atZone(at.getZone());
        return switch (unit) {
            case "year" -> reference.plusYears(floorBins(reference.until(at, ChronoUnit.YEARS), bin));
            case "quarter" -> reference.plusMonths(floorBins(reference.until(at, ChronoUnit.MONTHS), 3 * bin));
            case "month" -> reference.plusMonths(floorBins(reference.until(at, ChronoUnit.MONTHS), bin));
            case "week" -> {
                ZonedDateTime weekStart = reference.with(TemporalAdjusters.nextOrSame(dayOfWeek(startOfWeek)));
                yield weekStart.plusWeeks(floorBins(Math.floorDiv(weekStart.until(at, ChronoUnit.DAYS), 7), bin));
            }
            case "day" -> reference.plusDays(floorBins(reference.until(at, ChronoUnit.DAYS), bin));
            case "hour", "minute", "second", "millisecond" -> {
                ChronoUnit chrono = ChronoUnit.valueOf(unit.toUpperCase(Locale.ROOT) + "S");
                long units = Math.floorDiv(at.toInstant().toEpochMilli() - reference.toInstant().toEpochMilli(),
                        chrono.getDuration().toMillis());
                yield reference.plus(floorBins(units, bin) * chrono.getDuration().toMillis(), ChronoUnit.MILLIS);
            }
            default -> throw new CommandException(ErrorCode.BadValue, "$dateTrunc parameter 'unit' value cannot be recognized "
                    + "as a time unit: " + unit);
        };
    }

    private static String text(String name, String parameter, @Nullable BsonValue value) {
        if (value == null || !value.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, name + " requires '" + parameter + "' to be a string, found: "
                    + (value == null ? "missing" : TypeNames.of(value.getBsonType())));
        }
        return value.asString().getValue();
    }

    /** {@code units} rounded down to a multiple of {@code bin}; {@code until} truncates towards zero, so fix negatives. */
    private static long floorBins(long units, long bin) {
        return Math.floorDiv(units, bin) * bin;
    }

    private static DayOfWeek dayOfWeek(String name) {
        for (DayOfWeek day : DayOfWeek.values()) {
            String full = day.name().toLowerCase(Locale.ROOT);
            if (full.equals(name.toLowerCase(Locale.ROOT)) || full.substring(0, 3).equals(name.toLowerCase(Locale.ROOT))) {
                return day;
            }
        }
        throw new CommandException(ErrorCode.BadValue, "$dateTrunc parameter 'startOfWeek' must be a day of the week: " + name);
    }

    private static Expression zone(BsonDocument named, ExpressionParser parser) {
        return named.containsKey("timezone") ? parser.parse(named.get("timezone")) : variables -> new BsonString("UTC");
    }

    /** The date in the zone, or null when the date is null or missing. */
    private static @Nullable ZonedDateTime zoned(String name, @Nullable BsonValue date, @Nullable BsonValue zone) {
        if (Operands.nullish(date) || Operands.nullish(zone)) {
            return null;
        }
        long millis = switch (date.getBsonType()) {
            case DATE_TIME -> date.asDateTime().getValue();
            case OBJECT_ID -> date.asObjectId().getValue().getTimestamp() * 1000L;
            case TIMESTAMP -> date.asTimestamp().getTime() * 1000L;
            default -> throw new CommandException(ErrorCode.TypeMismatch, name + ": can't convert from BSON type "
                    + TypeNames.of(date.getBsonType()) + " to Date");
        };
        try {
            return Instant.ofEpochMilli(millis).atZone(ZoneId.of(zone.asString().getValue()));
        } catch (DateTimeException | BsonInvalidOperationException e) {
            throw new CommandException(ErrorCode.BadValue, "unrecognized time zone identifier: " + zone);
        }
    }
}
