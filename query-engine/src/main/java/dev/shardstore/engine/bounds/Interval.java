package dev.shardstore.engine.bounds;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.ExtendedJson;
import org.bson.BsonDocument;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonValue;

/**
 * An interval of values of one index field in BSON order, as MongoDB's {@code Interval}: bounds with
 * inclusivity. Rendered as explain shows it ({@code [5, inf.0]}, {@code ["FR", "FR"]}, {@code [MinKey, MaxKey]}).
 */
public record Interval(BsonValue low, boolean lowInclusive, BsonValue high, boolean highInclusive) {
    public static final Interval ALL = new Interval(new BsonMinKey(), true, new BsonMaxKey(), true);

    public static Interval point(BsonValue v) {
        return new Interval(v, true, v, true);
    }

    public boolean isPoint() {
        return lowInclusive && highInclusive && BsonOrder.compare(low, high) == 0;
    }

    public boolean isAll() {
        return (low.getBsonType() == org.bson.BsonType.MIN_KEY) && (high.getBsonType() == org.bson.BsonType.MAX_KEY);
    }

    public boolean isEmpty() {
        int c = BsonOrder.compare(low, high);
        return c > 0 || (c == 0 && !(lowInclusive && highInclusive));
    }

    /** The intersection (possibly empty). */
    public Interval intersect(Interval o) {
        int lc = BsonOrder.compare(low, o.low);
        BsonValue lo = lc > 0 ? low : o.low;
        boolean loIn = lc > 0 ? lowInclusive : lc < 0 ? o.lowInclusive : lowInclusive && o.lowInclusive;
        int hc = BsonOrder.compare(high, o.high);
        BsonValue hi = hc < 0 ? high : o.high;
        boolean hiIn = hc < 0 ? highInclusive : hc > 0 ? o.highInclusive : highInclusive && o.highInclusive;
        return new Interval(lo, loIn, hi, hiIn);
    }

    public boolean contains(BsonValue v) {
        int l = BsonOrder.compare(v, low);
        int h = BsonOrder.compare(v, high);
        return (l > 0 || (l == 0 && lowInclusive)) && (h < 0 || (h == 0 && highInclusive));
    }

    /** Explain's rendering; {@code reversed} for a descending field (MongoDB lists those high to low). */
    public String render(boolean reversed) {
        return reversed
                ? (highInclusive ? "[" : "(") + render(high) + ", " + render(low) + (lowInclusive ? "]" : ")")
                : (lowInclusive ? "[" : "(") + render(low) + ", " + render(high) + (highInclusive ? "]" : ")");
    }

    static String render(BsonValue v) {
        if ((v.getBsonType() == org.bson.BsonType.MIN_KEY)) {
            return "MinKey";
        }
        if ((v.getBsonType() == org.bson.BsonType.MAX_KEY)) {
            return "MaxKey";
        }
        if (v.isDouble() && Double.isInfinite(v.asDouble().getValue())) {
            return v.asDouble().getValue() > 0 ? "inf.0" : "-inf.0";
        }
        if (v.isNull()) {
            return "null";
        }
        String json = ExtendedJson.toJson(new BsonDocument("v", v));
        return json.substring(json.indexOf(':') + 1, json.lastIndexOf('}')).trim();
    }
}
