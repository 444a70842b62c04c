package dev.shardstore.router.audit;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.audit.*}: where the router's audit events go (MongoDB's {@code auditLog.destination: file} and
 * {@code auditLog.path}, in JSON, its {@code auditLog.format: JSON}).
 *
 * @param path   the file the events are appended to, one JSON document a line; none: {@code /actuator/audit} only
 * @param recent how many of the latest events {@code /actuator/audit} shows, at least 1
 */
@ConfigurationProperties("shardstore.audit")
public record AuditProperties(@Nullable Path path, @DefaultValue("1000") int recent) {
    /** No file, the default number of recent events. */
    public static final AuditProperties DEFAULTS = new AuditProperties(null, 1000);

    /** @throws IllegalArgumentException {@code recent} below 1 */
    public AuditProperties {
        if (recent < 1) {
            throw new IllegalArgumentException("shardstore.audit.recent must be at least 1, was " + recent);
        }
    }
}
