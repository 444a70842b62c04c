package dev.shardstore.config.settings;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The config service's settings commands, called by the balancer service (reference: "Auto-splitting and auto-balancing"). */
@Configuration
public class SettingsCommands {
    /**
     * {@code {_configsvrSetSettings: "<_id>", set: {...}}} → {@code {settings: {_id, ...}, ok: 1}}: sets fields of one
     * {@code config.settings} document ({@link ClusterSettings#set}); BadValue naming the document or field otherwise.
     */
    @Bean
    CommandHandler setSettings(ClusterSettings settings) {
        return CommandHandler.of("_configsvrSetSettings", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            BsonDocument fields = args.document(args.required(cmd, "set", "set"), "set");
            return Replies.ok(new BsonDocument("settings", settings.set(args.requiredString("_configsvrSetSettings"), fields)));
        });
    }

    /** {@code {_configsvrLogAction: "<what>", server, details}} → {@code {ok: 1}}: a {@code config.actionlog} entry. */
    @Bean
    CommandHandler logAction(ActionLog actionLog) {
        return CommandHandler.of("_configsvrLogAction", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            actionLog.record(args.requiredString("server"), args.requiredString("_configsvrLogAction"),
                    args.document(args.required(cmd, "details", "details"), "details"));
            return Replies.ok();
        });
    }
}
