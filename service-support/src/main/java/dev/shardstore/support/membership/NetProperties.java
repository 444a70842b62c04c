package dev.shardstore.support.membership;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.net.*}: MongoDB's {@code net.bindIp}, applied to every listener of the service (the HTTP server,
 * the command port, the router's wire listener).
 *
 * @param bindIp the addresses to listen on; empty (default) for every interface, as before. The local cluster passes
 *               {@code 127.0.0.1} unless {@code ./cluster up --bind-ip} says otherwise
 */
@ConfigurationProperties("shardstore.net")
public record NetProperties(@DefaultValue List<String> bindIp) {
    public NetProperties {
        bindIp = List.copyOf(bindIp);
        if (bindIp.stream().anyMatch(String::isBlank)) {
            throw new IllegalArgumentException("shardstore.net.bind-ip lists an empty address: " + bindIp);
        }
    }

    /**
     * The addresses of {@link #bindIp}, resolved; empty for every interface.
     *
     * @throws IllegalArgumentException for a name that does not resolve
     */
    public List<InetAddress> addresses() {
        return bindIp.stream().map(NetProperties::resolve).toList();
    }

    private static InetAddress resolve(String address) {
        try {
            return InetAddress.getByName(address.strip());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("shardstore.net.bind-ip: cannot resolve " + address, e);
        }
    }
}
