package dev.shardstore.console;

import java.util.Map;
import java.util.function.Supplier;
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
 * (no full reload). Actions ({@code POST /balancer/start|stop|move}) answer the fragment that reports their result,
 * with the cluster's error code when it refused.
 */
@Controller
public class ConsoleController {
    private final ClusterViews views;
    private final ConsoleProperties properties;

    private final Map<String, Supplier<Object>> liveViews;

    public ConsoleController(ClusterViews views, ConsoleProperties properties) {
        this.views = views;
        this.properties = properties;
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
        return page(model, "collection", views.collectionMap(ns, width));
    }

    @GetMapping("/live/collections/{ns}")
    public String liveCollection(@PathVariable("ns") String ns, @RequestParam(name = "width", defaultValue = "chunks") String width,
            Model model) {
        model.addAttribute("view", views.collectionMap(ns, width));
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

    private String page(Model model, String name, Object view) {
        model.addAttribute("view", view);
        model.addAttribute("page", name);
        model.addAttribute("swaggerUrl", properties.swaggerLink());
        return name;
    }
}
