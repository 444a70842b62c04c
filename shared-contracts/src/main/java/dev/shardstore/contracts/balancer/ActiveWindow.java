package dev.shardstore.contracts.balancer;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * The balancer's {@code activeWindow: {start: "HH:mm", stop: "HH:mm"}} setting: rounds act only between start and stop
 * (wrapping past midnight when stop is earlier than start), in the balancer's local time, as MongoDB's balancer.
 *
 * @param start first minute inside the window
 * @param stop  first minute after it; must differ from start
 */
public record ActiveWindow(LocalTime start, LocalTime stop) {
    private static final DateTimeFormatter HH_MM = DateTimeFormatter.ofPattern("H:mm");

    public ActiveWindow {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(stop, "stop");
        if (start.equals(stop)) {
            throw new IllegalArgumentException("activeWindow start and stop must differ, both are " + start);
        }
    }

    /**
     * Parses MongoDB's {@code "HH:mm"} strings.
     *
     * @throws IllegalArgumentException naming {@code activeWindow.start} or {@code activeWindow.stop} when malformed
     */
    public static ActiveWindow parse(String start, String stop) {
        return new ActiveWindow(time("activeWindow.start", start), time("activeWindow.stop", stop));
    }

    /** Whether a round at {@code now} may act. */
    public boolean contains(LocalTime now) {
        return start.isBefore(stop)
                ? !now.isBefore(start) && now.isBefore(stop)
                : !now.isBefore(start) || now.isBefore(stop);
    }

    /** {@code "HH:mm"} as stored. */
    public static String format(LocalTime time) {
        return String.format("%02d:%02d", time.getHour(), time.getMinute());
    }

    private static LocalTime time(String field, String value) {
        try {
            return LocalTime.parse(value, HH_MM);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " must be \"HH:mm\", not '" + value + "'", e);
        }
    }
}
