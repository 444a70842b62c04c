package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.ok;
import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator's web console (console-service) in a real headless Chromium driven by Selenium, against a local cluster
 * of 2 shards started with its console (ports offset by 3500): a collection of 1,200 documents split into 4 chunks, one
 * moved to shard2. The collection map draws exactly {@code config.chunks} (count, owners, key order); a moveChunk run
 * while the map is open changes the owner drawn without a reload; the balancer page moves a chunk (confirmed) and starts
 * and stops the balancer, as {@code balancerStatus} then says; a refused move shows the cluster's error code; a killed
 * shard is shown down while the pages keep serving, and up again once restarted; a live update of an unchanged map
 * keeps the drawn one; the operations page charts each shard's sampled meters beside a table of them. Each page is written as a 1280x800
 * screenshot to {@code docs/console/}.
 *
 * <p>Needs Debian's {@code chromium} and {@code chromium-driver} ({@code .ci/run} installs them); without them the class
 * is skipped, saying so, before any cluster starts.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String NS = "console.items";
    private static final Duration PAGE_WAIT = Duration.ofSeconds(20);
    private static final Path SCREENSHOTS = RepoLayout.detect().root().resolve("docs/console");

    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static RouterClient router;
    private static ChromeDriver browser;
    private static String console;

    @BeforeAll
    static void startClusterAndBrowser() throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "ConsoleIT skipped: it needs Debian's chromium and chromium-driver (" + CHROMIUM + ", " + CHROMEDRIVER
                        + "); install them with apt-get install chromium chromium-driver (.ci/run does)");
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add("-Dshardstore.balancer.round-interval=1s");
        // the console's meters sampled every second, so that the operations charts have lines within the test
        jvm.add("-Dshardstore.console.sample-interval=1s");
        cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(Files.createTempDirectory("shardstore-console-it-"))
                .withShards(2).withRouters(1).withPortOffset(3500).withConsole(true).withServiceJvmOptions(jvm),
                line -> System.out.println("[cluster] " + line));
        router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(2));
        console = cluster.url("console");

        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // root in a container: no sandbox; /dev/shm may be small
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,800");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
        browser = new ChromeDriver(service, options);
        // the page's viewport exactly 1280x800 (--window-size sizes the window, whose viewport is smaller), so that the
        // screenshots show what an operator's 1280x800 screen shows
        browser.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", 1280, "height", 800, "deviceScaleFactor", 1, "mobile", false));

        // the balancer off while the chunks are laid out, so that only this test moves them
        ok(router, "admin", "{\"balancerStop\": 1}");
        ok(router, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"k\": 1}}");
        StringBuilder documents = new StringBuilder();
        for (int k = 0; k < 1200; k++) {
            documents.append(k == 0 ? "" : ",").append("{\"k\": ").append(k).append(", \"payload\": \"").append("x".repeat(200)).append("\"}");
        }
        ok(router, "console", "{\"insert\": \"items\", \"documents\": [" + documents + "]}");
        for (int middle : new int[] {300, 600, 900}) {
            ok(router, "admin", "{\"split\": \"" + NS + "\", \"middle\": {\"k\": " + middle + "}}");
        }
        ok(router, "admin", "{\"moveChunk\": \"" + NS + "\", \"find\": {\"k\": 700}, \"to\": \"shard2\"}");
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    /** {@code config.chunks} of the collection in key order, as {owner, lower bound as the map writes it}. */
    private static List<String> configChunks() {
        return ItSupport.chunks(router, NS).stream().sorted(Comparator.comparing(c -> c.getDocument("min"), BsonOrder.COMPARATOR))
                .map(c -> c.getString("shard").getValue() + " " + ExtendedJson.toJson(c.getDocument("min"))).toList();
    }

    /**
     * The chunks the open map draws, left to right, as {owner, lower bound}: read in one script, so that htmx's swap of
     * the live part every 2 s cannot leave a stale element between two reads.
     */
    @SuppressWarnings("unchecked")
    private static List<String> drawnChunks() {
        return (List<String>) browser.executeScript(
                "return Array.from(document.querySelectorAll('#chunk-map li.chunk')).map(li => li.dataset.shard + ' ' + li.dataset.min);");
    }

    /** The text of the first element matching {@code css} (empty when there is none), read in one script as {@link #drawnChunks}. */
    private static String text(String css) {
        Object text = browser.executeScript("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : '';", css);
        return String.valueOf(text);
    }

    private static void open(String path) {
        browser.get(console + path);
        new WebDriverWait(browser, PAGE_WAIT).until(ExpectedConditions.presenceOfElementLocated(By.id("live")));
    }

    private static void screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Files.write(SCREENSHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
    }

    @Test
    @Order(1)
    void theOverviewShowsTheShardsUp() throws IOException {
        open("/");
        waitUntil(() -> browser.findElements(By.cssSelector("#shards tr[data-health='UP']")).size() == 2, PAGE_WAIT, "both shards UP");
        assertThat(text("#balancer-mode")).startsWith("off");
        assertThat(text("#balancer-window")).isEqualTo("any time");
        assertThat(text("#sessions")).as("the session service's stored sessions").matches("\\d+");
        // Kafka and PostgreSQL as the config service's health indicators see them; each shard's build version
        assertThat(text("#services tr[data-service='kafka']")).contains("UP", "brokers: 1");
        assertThat(text("#services tr[data-service='postgresql']")).contains("UP", "PostgreSQL");
        assertThat(text("#shards tr[data-shard='shard1']")).contains("0.1.0-SNAPSHOT");
        assertThat(text("a[href='/collections/" + NS + "']")).isEqualTo(NS);
        assertThat(browser.findElement(By.partialLinkText("Swagger UI")).getDomAttribute("href")).isEqualTo(cluster.routerUrl(1) + "/swagger-ui");
        screenshot("overview");

        // a phone's width (390 CSS pixels): the page does not scroll sideways; wide tables scroll inside their own box
        browser.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", 390, "height", 844, "deviceScaleFactor", 1, "mobile", true));
        try {
            for (String path : List.of("/", "/collections/" + NS, "/movements", "/balancer", "/operations")) {
                open(path);
                waitUntil(() -> !browser.findElements(By.cssSelector("main h1")).isEmpty(), PAGE_WAIT, path + " at a phone's width");
                Number overflow = (Number) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
                        "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
                assertThat(overflow.intValue()).as("%s scrolls sideways by %s px at 390 px", path, overflow).isLessThanOrEqualTo(0);
            }
            open("/");
            waitUntil(() -> browser.findElements(By.cssSelector("#shards tr[data-health='UP']")).size() == 2, PAGE_WAIT, "the overview at a phone's width");
            screenshot("overview-phone");
        } finally {
            browser.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", 1280, "height", 800, "deviceScaleFactor", 1, "mobile", false));
        }
    }

    @Test
    @Order(2)
    void theMapDrawsConfigChunksAndFollowsAMoveLive() throws IOException {
        open("/collections/" + NS + "?width=documents");
        List<String> expected = configChunks();
        assertThat(expected).hasSize(4);
        assertThat(drawnChunks()).isEqualTo(expected);
        assertThat(expected).extracting(c -> c.split(" ")[0]).containsExactly("shard1", "shard1", "shard2", "shard1");
        assertThat(browser.executeScript("return document.getElementById('chunk-0').getAttribute('aria-label');")).asString().contains("on shard1");
        // hovering a chunk shows its bounds, version and size under the map
        waitUntil(() -> {
            new Actions(browser).moveToElement(browser.findElement(By.id("chunk-2"))).perform();
            return text("#chunk-tip").startsWith("Chunk 3: [{\"k\": 600}, {\"k\": 900}) on shard2");
        }, PAGE_WAIT, "the hovered chunk's details");
        screenshot("collection");

        // moved behind the page's back: the open map redraws the owner within a poll, without a reload
        ok(router, "admin", "{\"moveChunk\": \"" + NS + "\", \"find\": {\"k\": 100}, \"to\": \"shard2\"}");
        waitUntil(() -> drawnChunks().getFirst().startsWith("shard2 "), PAGE_WAIT, "the map's first chunk on shard2");
        assertThat(drawnChunks()).isEqualTo(configChunks());
        // then an update finds the map unchanged and keeps the drawn one rather than sending it again
        waitUntil(() -> "preserved".equals(browser.executeScript("return document.getElementById('live').dataset.map;")), PAGE_WAIT,
                "an update that kept the map");
        assertThat(drawnChunks()).isEqualTo(configChunks());
    }

    @Test
    @Order(3)
    void theBalancerPageMovesAChunkConfirmedAndRefusesBadInputWithTheCode() throws IOException {
        open("/balancer");
        new Select(browser.findElement(By.id("move-ns"))).selectByValue(NS);
        browser.findElement(By.id("move-find")).sendKeys("{\"k\": 1000}");
        new Select(browser.findElement(By.id("move-to"))).selectByValue("shard2");
        browser.findElement(By.id("move-submit")).click();
        new WebDriverWait(browser, PAGE_WAIT).until(ExpectedConditions.alertIsPresent()).accept();
        new WebDriverWait(browser, Duration.ofMinutes(1)).until(ExpectedConditions.textToBePresentInElementLocated(By.id("action-result"), "moved to shard2"));
        assertThat(configChunks().getLast()).startsWith("shard2 ");

        WebElement find = browser.findElement(By.id("move-find"));
        find.clear();
        find.sendKeys("{\"notTheShardKey\": 1}");
        browser.findElement(By.id("move-submit")).click();
        new WebDriverWait(browser, PAGE_WAIT).until(ExpectedConditions.alertIsPresent()).accept();
        new WebDriverWait(browser, PAGE_WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("action-result"), "refused"));
        assertThat(browser.findElement(By.cssSelector("#action-result .result.refused")).getText()).matches("moveChunk refused: \\w+ \\(\\d+\\): .*");
        screenshot("balancer");
    }

    @Test
    @Order(4)
    void theBalancerIsStartedAndStoppedFromThePage() {
        open("/balancer");
        browser.findElement(By.id("balancer-start")).click();
        new WebDriverWait(browser, PAGE_WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("action-result"), "started"));
        assertThat(ok(router, "admin", "{\"balancerStatus\": 1}").getString("mode").getValue()).isEqualTo("full");

        browser.findElement(By.id("balancer-stop")).click();
        new WebDriverWait(browser, PAGE_WAIT).until(ExpectedConditions.alertIsPresent()).accept();
        new WebDriverWait(browser, Duration.ofMinutes(1)).until(ExpectedConditions.textToBePresentInElementLocated(By.id("action-result"), "stopped"));
        BsonDocument status = ok(router, "admin", "{\"balancerStatus\": 1}");
        assertThat(status.getString("mode").getValue()).isEqualTo("off");
        waitUntil(() -> text("#balancer-state").equals("off"), PAGE_WAIT, "the page's mode off");
    }

    @Test
    @Order(5)
    void theMovementsAndOperationsPagesShowWhatTheClusterExposes() throws IOException {
        // every command counts as slow for a moment (profile level 0 with slowms 0, as on a mongos), so the slow-operation
        // table has entries: this find at least
        RouterClient.requireOk("profile", router.run("admin", org.bson.BsonDocument.parse("{profile: 0, slowms: 0}")));
        RouterClient.requireOk("find", router.run("geo", org.bson.BsonDocument.parse("{find: 'slowprobe', filter: {}}")));
        RouterClient.requireOk("profile", router.run("admin", org.bson.BsonDocument.parse("{profile: 0, slowms: 100}")));
        open("/movements");
        waitUntil(() -> !browser.findElements(By.cssSelector("#history tbody tr")).isEmpty(), PAGE_WAIT, "the changelog's moves");
        assertThat(text("#history")).contains("moveChunk", NS);
        screenshot("movements");

        open("/operations");
        // the router's $currentOp: the console's own aggregate is an entry of the router, and each shard's commands are
        // entries of that shard ("<shard>:<opid>"), the $currentOp the router fanned out to it at least
        waitUntil(() -> !browser.findElements(By.cssSelector("#current-op tr[data-opid]")).isEmpty(), PAGE_WAIT, "$currentOp's entries");
        assertThat(text("#current-op")).contains("admin.$cmd", "router");
        assertThat(browser.findElements(By.cssSelector("#current-op tr[data-opid^='shard1:']"))).as("an opid \"shard1:<n>\"").isNotEmpty();
        assertThat(text(".errors")).as("$currentOp is not refused any more").doesNotContain("NotImplemented (238)");
        assertThat(text("#slow-operations")).as("the routers' slow-operation log").contains("geo.slowprobe", "find", "router1");
        // each shard's meters: a row of the table beside the charts, and a line in each chart once two samples rated it
        waitUntil(() -> browser.findElements(By.cssSelector("#meters-table tr[data-shard]")).size() == 2, PAGE_WAIT, "a table row per shard");
        waitUntil(() -> chartPoints("throughput-chart").size() == 2 && chartPoints("throughput-chart").stream().allMatch(n -> n >= 2)
                && chartPoints("latency-chart").size() == 2, PAGE_WAIT, "the charts' lines, one per shard");
        assertThat(text("#meters-table tr[data-shard='shard1'] th")).isEqualTo("shard1");
        screenshot("operations");
    }

    /**
     * A shard killed (kill -9): the open overview shows it down, the other pages keep serving (the map still draws
     * {@code config.chunks}, which the config service holds), and once it is back the overview shows it up again. How long
     * the overview took to notice is printed (the aim is 5 s: timing goals are not asserted in tests).
     */
    @Test
    @Order(6)
    void theConsoleKeepsWorkingWhileAShardIsDownAndShowsItBack() {
        open("/");
        waitUntil(() -> health("shard2").equals("UP"), PAGE_WAIT, "shard2 UP before the kill");
        long killed = System.nanoTime();
        cluster.killService("shard2");
        waitUntil(() -> !health("shard2").isEmpty() && !health("shard2").equals("UP"), PAGE_WAIT, "the overview shows shard2 down");
        System.out.printf("ConsoleIT: the overview showed the killed shard down after %d ms%n", (System.nanoTime() - killed) / 1_000_000);
        assertThat(health("shard1")).isEqualTo("UP");

        open("/collections/" + NS + "?width=chunks");
        assertThat(drawnChunks()).as("the map, from the config service, while a shard is down").isEqualTo(configChunks());

        cluster.startService("shard2");
        open("/");
        waitUntil(() -> health("shard2").equals("UP"), Duration.ofMinutes(1), "the overview shows shard2 up again");
    }

    /** How many points each line of the ECharts chart in element {@code id} has (empty before it is drawn). */
    @SuppressWarnings("unchecked")
    private static List<Long> chartPoints(String id) {
        return (List<Long>) browser.executeScript("const c = echarts.getInstanceByDom(document.getElementById(arguments[0]));"
                + " return c ? c.getOption().series.map(s => s.data.length) : [];", id);
    }

    /** The health the open overview shows for {@code shard} (empty before its row is drawn). */
    private static String health(String shard) {
        Object health = browser.executeScript("const row = document.querySelector(\"#shards tr[data-shard='\" + arguments[0] + \"']\");"
                + " return row ? row.dataset.health : '';", shard);
        return String.valueOf(health);
    }
}
