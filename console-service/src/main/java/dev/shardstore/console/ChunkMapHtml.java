package dev.shardstore.console;

import dev.shardstore.console.Views.Chunk;
import dev.shardstore.console.Views.CollectionMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;
import org.springframework.web.util.HtmlUtils;

/**
 * The collection map's chunk elements, {@code <li class="chunk ...">} one per chunk, as HTML, and a version that
 * changes whenever they would. Written here rather than by a Thymeleaf loop: at 10,000 chunks the template's
 * per-element expressions were most of a map update's server time (docs/benchmarks.md "The console's collection map").
 * The last rendering of each collection is kept by version, so that browsers showing the same map share it. Thread-safe.
 */
@Component
public class ChunkMapHtml {
    private record Rendered(String version, String html) {}

    private final Map<String, Rendered> last = new ConcurrentHashMap<>();

    /**
     * The version of {@code chunks} as drawn: equal for lists that render the same elements (a 64-bit hash over every
     * chunk's fields, and the count).
     */
    public static String version(List<Chunk> chunks) {
        long hash = 1125899906842597L;
        for (Chunk c : chunks) {
            hash = 31 * hash + c.hashCode();
        }
        return Long.toHexString(hash) + "-" + chunks.size();
    }

    /**
     * The map's {@code <li>} elements: id {@code chunk-<index>}, focusable, classes {@code chunk shard-<colour>} and
     * {@code jumbo}, {@code moving}, {@code zoned} as they apply, its width as {@code flex-grow}, {@code data-shard},
     * {@code data-min} and its description as {@code aria-label} (console.js shows it on hover and focus).
     */
    public String html(CollectionMap map) {
        Rendered kept = last.get(map.ns());
        if (kept != null && kept.version().equals(map.mapVersion())) {
            return kept.html();
        }
        StringBuilder out = new StringBuilder(map.chunks().size() * 480);
        for (Chunk c : map.chunks()) {
            out.append("<li id=\"chunk-").append(c.index()).append("\" tabindex=\"0\" class=\"chunk shard-").append(c.colour())
                    .append(c.jumbo() ? " jumbo" : "").append(c.moving() != null ? " moving" : "").append(c.zone() != null ? " zoned" : "")
                    .append("\" style=\"flex-grow: ").append(c.weight()).append("\" data-shard=\"").append(escape(c.shard()))
                    .append("\" data-min=\"").append(escape(c.min())).append("\" aria-label=\"").append(escape(c.describe()))
                    .append("\"></li>");
        }
        String html = out.toString();
        last.put(map.ns(), new Rendered(map.mapVersion(), html));
        return html;
    }

    private static String escape(String text) {
        return HtmlUtils.htmlEscape(text, "UTF-8");
    }
}
