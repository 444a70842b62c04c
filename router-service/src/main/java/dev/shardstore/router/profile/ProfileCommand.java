package dev.shardstore.router.profile;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.operation.OperationContext;
import java.util.Locale;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code {profile: <level>, slowms?, sampleRate?}} on any database, as a mongos answers it (MongoDB manual, "profile"):
 * a router has no {@code system.profile}, so only level 0 (log slow operations, {@link SlowOperationLog}) and -1 (read
 * the settings) are accepted. Replies {@code {was: 0, slowms, sampleRate, ok: 1}} with the settings before the command.
 *
 * <p>Errors: BadValue (2) for level 1 or 2 ("profiling is not permitted on a router"), for a level that is not -1..2
 * and for a bad {@code slowms} or {@code sampleRate}; TypeMismatch (14) for a field of the wrong type; NotImplemented
 * (238) for {@code filter} (MongoDB 4.4.2's profile filter), which would otherwise be ignored.
 */
@Component
public class ProfileCommand implements CommandHandler {
    private final SlowOperationLog slow;

    public ProfileCommand(SlowOperationLog slow) {
        this.slow = slow;
    }

    @Override
    public String name() {
        return "profile";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        int level = (int) number(command, "profile");
        if (level < -1 || level > 2) {
            throw new CommandException(ErrorCode.BadValue, "Invalid profiling level: " + level);
        }
        if (level > 0) {
            throw new CommandException(ErrorCode.BadValue, "profiling level " + level + " is not permitted on a router (mongos):"
                    + " it has no system.profile; use level 0 with slowms to log slow operations");
        }
        if (command.containsKey("filter")) {
            throw new CommandException(ErrorCode.NotImplemented, "profile's 'filter' is not implemented on this router: every command"
                    + " slower than slowms is logged");
        }
        BsonDocument reply = new BsonDocument("was", new BsonInt32(0)).append("slowms", new BsonInt32(slow.slowMs()))
                .append("sampleRate", new BsonDouble(slow.sampleRate()));
        if (level == 0) {
            int slowMs = command.containsKey("slowms") ? Math.toIntExact(Math.round(number(command, "slowms"))) : slow.slowMs();
            double sampleRate = command.containsKey("sampleRate") ? number(command, "sampleRate") : slow.sampleRate();
            slow.configure(slowMs, sampleRate);
        }
        return Replies.ok(reply);
    }

    private static double number(BsonDocument command, String field) {
        BsonValue value = command.get(field);
        if (value == null || !value.isNumber()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'profile." + field + "' is the wrong type '"
                    + (value == null ? "missing" : value.getBsonType().name().toLowerCase(Locale.ROOT)) + "', expected a number");
        }
        return value.asNumber().doubleValue();
    }
}
