// What every whipbench page script shares (runs in the browser, inlined before the page's own
// script, next to uPlot): the page's data, drawing a chart into its element, the "no data" note,
// and the record of what each chart drew, which the headless-browser tests read
// (window.whipbenchCharts; html[data-charts="drawn"] marks the end, set by `finish`).
window.whipbenchPlot = (() => {
  const data = JSON.parse(document.getElementById("whipbench-data").textContent);
  const drawn = {};
  const widthOf = (el) => Math.max(320, Math.floor(el.getBoundingClientRect().width) || 560);

  function noData(id, why) {
    const el = document.getElementById(id);
    el.className = "nodata";
    el.textContent = `no data: ${why}`;
    drawn[id] = { points: 0, series: 0, reason: why };
  }

  /** Draws columns (x first) into #id; `extra` adds to what the tests read of it. */
  function plot(id, opts, columns, extra) {
    const el = document.getElementById(id);
    const u = new uPlot({ width: widthOf(el), height: 260, ...opts }, columns, el);
    let points = 0;
    for (let s = 1; s < columns.length; s++) {
      for (const v of columns[s]) if (v !== null && v !== undefined) points++;
    }
    drawn[id] = { points, series: columns.length - 1, canvas: el.querySelector("canvas") !== null, ...extra };
    return u;
  }

  const line = (label, stroke, scale, extra) => ({
    label,
    stroke,
    width: 2,
    scale,
    spanGaps: false,
    ...extra,
  });
  const dots = (label, colour, size, extra) => ({
    label,
    stroke: colour,
    fill: colour,
    paths: () => null,
    points: { show: true, size, fill: colour, stroke: colour },
    ...extra,
  });
  const fixed = (d) => (_u, v) => (v === null || v === undefined ? "–" : v.toFixed(d));

  function finish() {
    window.whipbenchCharts = drawn;
    document.documentElement.dataset.charts = "drawn";
  }

  return { data, noData, plot, line, dots, fixed, finish };
})();
