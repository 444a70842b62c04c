package dev.shardstore.router.security;

import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.support.security.CommandPrivileges;
import org.springframework.stereotype.Component;

/**
 * Refuses to start a router one of whose commands has no entry in {@link CommandPrivileges} (whether authorization is
 * on or not), so that a new command cannot slip through unchecked: authorization would refuse it to every client.
 */
@Component
public class PrivilegeTableCoverage {
    /**
     * Checks the router's registry.
     *
     * @throws IllegalStateException naming the commands without an entry
     */
    public PrivilegeTableCoverage(CommandRegistry registry) {
        CommandPrivileges.requireCovered(registry.names());
    }
}
