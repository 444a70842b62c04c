// The console's only script: draws the ECharts charts a page's live part carries (data-chart: an ECharts option as JSON)
// and shows the hovered or focused chunk's details in #chunk-tip. htmx swaps the live part every 2 s; each swap draws again,
// and a resized window redraws at the new width.
(function () {
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
  document.addEventListener("DOMContentLoaded", function () { drawCharts(document); });
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
