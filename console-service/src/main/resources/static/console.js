// The console's only script: draws the ECharts charts a page's live part carries (data-chart: an ECharts option as JSON)
// and shows the hovered or focused chunk's details in #chunk-tip. htmx swaps the live part every 2 s; each swap draws again.
(function () {
  function drawCharts(root) {
    if (typeof echarts === "undefined") return;
    root.querySelectorAll("[data-chart]").forEach(function (el) {
      var chart = echarts.getInstanceByDom(el) || echarts.init(el, null, { renderer: "svg" });
      chart.setOption(JSON.parse(el.dataset.chart));
    });
  }
  function showTip(event) {
    var chunk = event.target.closest && event.target.closest(".chunk");
    var tip = document.getElementById("chunk-tip");
    if (chunk && tip) tip.textContent = "Chunk " + (Number(chunk.dataset.index) + 1) + ": " + chunk.dataset.tip;
  }
  document.addEventListener("DOMContentLoaded", function () { drawCharts(document); });
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (typeof echarts === "undefined") return;
    event.detail.target.querySelectorAll("[data-chart]").forEach(function (el) { echarts.dispose(el); });
  });
  document.addEventListener("htmx:afterSettle", function (event) { drawCharts(event.detail.elt.parentNode || document); });
  document.addEventListener("mouseover", showTip);
  document.addEventListener("focusin", showTip);
})();
