package dev.shardstore.console;

import dev.shardstore.console.meters.MeterSampler;
import dev.shardstore.console.meters.ShardMeters;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.server.ResponseStatusException;

/**
 * The console's pages at stable paths ({@code /}, {@code /collections/{db}.{coll}}, {@code /movements}, {@code /balancer},
 * {@code /operations}) and, under {@code /live/...}, the part of each that htmx fetches every 2 s and swaps in place
 * (no full reload), and {@code /operations/meters}, the operations charts' data. Actions
 * ({@code POST /balancer/start|stop|move}) answer the fragment that reports their result, with the cluster's error code
 * when it refused.
 */
@Controller
public class ConsoleController {
    private final ClusterViews views;
    private final ConsoleProperties properties;
    private final MeterSampler meters;
    private final ChunkMapHtml chunkMapHtml;

    private final Map<String, Supplier<Object>> liveViews;

    public ConsoleController(ClusterViews views, ConsoleProperties properties, MeterSampler meters, ChunkMapHtml chunkMapHtml) {
        this.views = views;
        this.properties = properties;
        this.meters = meters;
        this.chunkMapHtml = chunkMapHtml;
        this.liveViews = Map.of("overview", views::overview, "movements", views::movements, "balancer", views::balancer,
                "operations", views::operations);
    }

    @GetMapping("/")
    public String overview(Model model) {
        return page(model, "overview", views.overview());
    }

    /**
     * The live part of {@code /}, {@code /movements}, {@code /balancer} or {@code /operations} ({@code name} is
     * {@code overview}, {@code movements}, {@code balancer} or {@code operations}).
     *
     * @throws ResponseStatusException 404 for another name
     */
    @GetMapping("/live/{name}")
    public String live(@PathVariable("name") String name, Model model) {
        Supplier<Object> view = liveViews.get(name);
        if (view == null) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no page " + name);
        }
        model.addAttribute("view", view.get());
        return name + " :: live";
    }

    @GetMapping("/collections/{ns}")
    public String collection(@PathVariable("ns") String ns, @RequestParam(name = "width", defaultValue = "chunks") String width, Model model) {
        Views.CollectionMap view = views.collectionMap(ns, width);
        model.addAttribute("preserved", false);
        model.addAttribute("mapHtml", chunkMapHtml.html(view));
        return page(model, "collection", view);
    }

    /**
     * The live part of {@code /collections/{ns}}. {@code known} is the {@link Views.CollectionMap#mapVersion} of the map
     * the browser shows (the live part's own {@code hx-get} carries it): when the map is still that version, its
     * thousands of chunk elements are not sent again, and htmx keeps the shown ones ({@code hx-preserve}).
     */
    @GetMapping("/live/collections/{ns}")
    public String liveCollection(@PathVariable("ns") String ns, @RequestParam(name = "width", defaultValue = "chunks") String width,
            @RequestParam(name = "known", defaultValue = "") String known, Model model) {
        Views.CollectionMap view = views.collectionMap(ns, width);
        boolean preserved = view.mapVersion().equals(known);
        model.addAttribute("view", view);
        model.addAttribute("preserved", preserved);
        model.addAttribute("mapHtml", preserved ? "" : chunkMapHtml.html(view));
        return "collection :: live";
    }

    @GetMapping("/movements")
    public String movements(Model model) {
        return page(model, "movements", views.movements());
    }

    @GetMapping("/balancer")
    public String balancer(Model model) {
        return page(model, "balancer", views.balancer());
    }

    @PostMapping("/balancer/start")
    public String startBalancer(Model model) {
        model.addAttribute("result", views.setBalancer(true));
        return "layout :: result";
    }

    @PostMapping("/balancer/stop")
    public String stopBalancer(Model model) {
        model.addAttribute("result", views.setBalancer(false));
        return "layout :: result";
    }

    @PostMapping("/balancer/move")
    public String moveChunk(@RequestParam("ns") String ns, @RequestParam("find") String find, @RequestParam("to") String to, Model model) {
        model.addAttribute("result", views.moveChunk(ns.strip(), find, to));
        return "layout :: result";
    }

    @GetMapping("/operations")
    public String operations(Model model) {
        return page(model, "operations", views.operations());
    }

    /**
     * The operations page's chart data, which console.js polls every 2 s: {@code {intervalSeconds, historySeconds,
     * shards: [{shard, colour: "#0072B2", points: [[epochMillis, commandsPerSecond | null, p99Millis | null], ...]}]}},
     * oldest point first, the last 15 minutes ({@link MeterSampler}).
     */
    @GetMapping(path = "/operations/meters", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    public String meters() {
        BsonArray shards = new BsonArray();
        for (ShardMeters meters : this.meters.history()) {
            BsonArray points = new BsonArray();
            meters.points().forEach(p -> points.add(new BsonArray(List.of(new BsonInt64(p.time().toEpochMilli()), number(p.opsPerSecond()),
                    number(p.p99Millis())))));
            shards.add(new BsonDocument("shard", new BsonString(meters.shard()))
                    .append("colour", new BsonString(Views.PALETTE_COLOURS.get(meters.colour()))).append("points", points));
        }
        return ExtendedJson.toJson(new BsonDocument("intervalSeconds", new BsonInt64(this.meters.interval().toSeconds()))
                .append("historySeconds", new BsonInt64(MeterSampler.HISTORY.toSeconds())).append("shards", shards));
    }

    private static BsonValue number(@Nullable Double value) {
        return value == null ? BsonNull.VALUE : new BsonDouble(value);
    }

    private String page(Model model, String name, Object view) {
        model.addAttribute("view", view);
        model.addAttribute("page", name);
        model.addAttribute("swaggerUrl", properties.swaggerLink());
        return name;
    }
}
