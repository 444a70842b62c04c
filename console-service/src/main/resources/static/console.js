// The console's only script: draws the ECharts charts a page's live part carries (data-chart: an ECharts option as JSON),
// draws the operations page's per-shard meters from the JSON it polls every 2 s (#meters, data-meters: its URL), and shows
// the hovered or focused chunk's details in #chunk-tip. htmx swaps the live part every 2 s; each swap draws again, and a
// resized window redraws at the new width.
(function () {
  // one line per shard, in its palette colour, over the last 15 minutes; a null value is a gap (the shard did not answer)
  function meterOption(data, index, unit) {
    var now = Date.now();
    return {
      animation: false,
      grid: { left: 60, right: 10, top: 10, bottom: 50 },
      tooltip: { trigger: "axis", valueFormatter: function (v) { return v == null ? "–" : v.toFixed(1) + " " + unit; } },
      legend: { bottom: 0 },
      xAxis: { type: "time", min: now - data.historySeconds * 1000, max: now },
      yAxis: { type: "value", min: 0 },
      series: data.shards.map(function (s) {
        return { name: s.shard, type: "line", showSymbol: false, connectNulls: false, color: s.colour,
                 data: s.points.map(function (p) { return [p[0], p[index]]; }) };
      })
    };
  }
  function drawMeters() {
    var section = document.getElementById("meters");
    if (!section || typeof echarts === "undefined") return;
    fetch(section.dataset.meters, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        [["throughput-chart", 1, "commands/s"], ["latency-chart", 2, "ms"]].forEach(function (c) {
          var el = document.getElementById(c[0]);
          var chart = echarts.getInstanceByDom(el) || echarts.init(el, null, { renderer: "svg" });
          chart.setOption(meterOption(data, c[1], c[2]), { notMerge: true });
        });
      })
      .catch(function () { /* the table beside the charts names the cluster's errors; the next poll tries again */ });
  }
  function drawCharts(root) {
    if (typeof echarts === "undefined") return;
    root.querySelectorAll("[data-chart]").forEach(function (el) {
      var chart = echarts.getInstanceByDom(el) || echarts.init(el, null, { renderer: "svg" });
      chart.setOption(JSON.parse(el.dataset.chart));
    });
  }
  // the tip and the chunk table are inside the live part: the tip's text and the table's open state survive a swap
  var lastTip = null;
  var tableOpen = null;
  document.addEventListener("toggle", function (event) {
    if (event.target.id === "chunk-table") tableOpen = event.target.open;
  }, true);
  function showTip(event) {
    var chunk = event.target.closest && event.target.closest(".chunk");
    var tip = document.getElementById("chunk-tip");
    if (chunk && tip) {
      lastTip = chunk.getAttribute("aria-label");
      tip.textContent = lastTip;
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    drawCharts(document);
    if (document.getElementById("meters")) {
      drawMeters();
      setInterval(drawMeters, 2000);
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (typeof echarts === "undefined") return;
    event.detail.target.querySelectorAll("[data-chart]").forEach(function (el) { echarts.dispose(el); });
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    drawCharts(event.detail.elt.parentNode || document);
    var tip = document.getElementById("chunk-tip");
    if (tip && lastTip) tip.textContent = lastTip;
    var table = document.getElementById("chunk-table");
    if (table && tableOpen !== null) table.open = tableOpen;
  });
  window.addEventListener("resize", function () {
    if (typeof echarts === "undefined") return;
    document.querySelectorAll("[data-chart]").forEach(function (el) {
      var chart = echarts.getInstanceByDom(el);
      if (chart) chart.resize();
    });
  });
  document.addEventListener("mouseover", showTip);
  document.addEventListener("focusin", showTip);
})();
