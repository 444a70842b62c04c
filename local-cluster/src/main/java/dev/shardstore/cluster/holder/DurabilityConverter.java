package dev.shardstore.cluster.holder;

import dev.shardstore.infra.PostgresDurability;
import picocli.CommandLine.ITypeConverter;

/**
 * Reads a {@code --durability} value ({@code durable} or {@code fast}) with {@link PostgresDurability#parse}, whose
 * message for anything else picocli prints as the usage error.
 */
public final class DurabilityConverter implements ITypeConverter<PostgresDurability> {
    @Override
    public PostgresDurability convert(String value) {
        return PostgresDurability.parse(value);
    }
}
