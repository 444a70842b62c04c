package dev.shardstore.console;

import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;

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

    public ConsoleController(ClusterViews views, ConsoleProperties properties) {
        this.views = views;
        this.properties = properties;
    }

    @GetMapping("/")
    public String overview(Model model) {
        return page(model, "overview", views.overview());
    }

    @GetMapping("/live/overview")
    public String liveOverview(Model model) {
        model.addAttribute("view", views.overview());
        return "overview :: live";
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

    @GetMapping("/live/movements")
    public String liveMovements(Model model) {
        model.addAttribute("view", views.movements());
        return "movements :: live";
    }

    @GetMapping("/balancer")
    public String balancer(Model model) {
        return page(model, "balancer", views.balancer());
    }

    @GetMapping("/live/balancer")
    public String liveBalancer(Model model) {
        model.addAttribute("view", views.balancer());
        return "balancer :: live";
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

    @GetMapping("/live/operations")
    public String liveOperations(Model model) {
        model.addAttribute("view", views.operations());
        return "operations :: live";
    }

    private String page(Model model, String name, Object view) {
        model.addAttribute("view", view);
        model.addAttribute("page", name);
        model.addAttribute("swaggerUrl", properties.swaggerLink());
        return name;
    }
}
