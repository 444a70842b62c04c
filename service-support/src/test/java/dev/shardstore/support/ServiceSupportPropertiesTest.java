package dev.shardstore.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The documented keys bind: {@code shardstore.test-commands.enabled} is what fault tests pass on the command line. */
class ServiceSupportPropertiesTest {
    private static ServiceSupportProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("shardstore", ServiceSupportProperties.class);
    }

    @Test
    void testCommandsAreOffByDefaultAndOnWithTheDocumentedKey() {
        assertThat(bind(Map.of()).testCommands().enabled()).isFalse();
        assertThat(bind(Map.of("shardstore.test-commands.enabled", "true")).testCommands().enabled()).isTrue();
    }
}
