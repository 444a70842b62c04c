package dev.shardstore.shard;

import dev.shardstore.infra.EmbeddedInfra;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A second shard service in the test JVM, for tests that need two shards (a chunk migration's donor and recipient): a
 * whole Spring Boot application on its own embedded PostgreSQL database and a random port, with {@link ConfigServerStub}
 * as its config service and the same migration settings as {@link ShardIntegrationTest}'s shard.
 */
public final class OtherShard implements AutoCloseable {
    private final ConfigurableApplicationContext context;
    private final String name;

    private OtherShard(String name, ConfigurableApplicationContext context) {
        this.name = name;
        this.context = context;
    }

    /** Starts shard {@code name} on database {@code database} (created if needed). */
    public static OtherShard start(String name, String database) {
        Map<String, Object> properties = new HashMap<>(EmbeddedInfra.shared().springProperties(database));
        properties.putAll(ShardIntegrationTest.MIGRATION_SETTINGS);
        properties.put("server.port", "0");
        properties.put("shardstore.config-url", ConfigServerStub.instance().url());
        properties.put("shardstore.shard.name", name);
        properties.put("spring.jmx.enabled", "false");
        // as arguments: they must win over application.yml, which default properties would not
        String[] args = properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ShardServiceApplication.class).run(args);
        return new OtherShard(name, context);
    }

    public String name() {
        return name;
    }

    /** Its base URL. */
    public String url() {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    /** One of its beans. */
    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
