// The HTML report's page script (runs in the browser, inlined into the report after uPlot and
// html-plot.browser.js): draws each chart from the data embedded in the page.
(() => {
  const { data, noData, plot, line, fixed, finish } = window.whipbenchPlot;
  const ch = data.charts;
  const BLUE = "#1f6fb4";
  const RED = "#c0392b";
  const GREEN = "#2e8b57";
  const ORANGE = "#d07a00";

  // 1. active viewers and packets/s per second
  const tl = ch.timeline;
  if (tl.t.length === 0) noData("chart-timeline", "the run has no timeline");
  else
    plot(
      "chart-timeline",
      {
        scales: { x: { time: false }, viewers: { range: (_u, _lo, hi) => [0, Math.max(1, hi)] }, pps: {} },
        axes: [
          { label: "seconds since the first viewer's start" },
          { scale: "viewers", label: "active viewers" },
          { scale: "pps", side: 1, label: "packets/s", grid: { show: false } },
        ],
        series: [
          { label: "t (s)" },
          line("active viewers", BLUE, "viewers", { value: fixed(0) }),
          line("packets/s", ORANGE, "pps", { value: fixed(0) }),
        ],
      },
      [tl.t, tl.active, tl.packets],
    );

  // 2. client CPU and event-loop delay per second
  const hasClient = tl.cpuPercent.some((v) => v !== null) || tl.eventLoopDelayMs.some((v) => v !== null);
  if (!hasClient) noData("chart-client", "this report has no per-second client figures");
  else
    plot(
      "chart-client",
      {
        scales: { x: { time: false }, pct: { range: (_u, _lo, hi) => [0, Math.max(10, hi)] }, ms: {} },
        axes: [
          { label: "seconds since the first viewer's start" },
          { scale: "pct", label: "CPU, % of all cores" },
          { scale: "ms", side: 1, label: "event-loop delay p99, ms", grid: { show: false } },
        ],
        series: [
          { label: "t (s)" },
          line("client CPU %", GREEN, "pct", { value: fixed(1) }),
          line("event-loop delay p99 (ms)", RED, "ms", { value: fixed(1) }),
        ],
      },
      [tl.t, tl.cpuPercent, tl.eventLoopDelayMs],
    );

  // 2b. viewers frozen per second, active viewers beside (docs/definitions.md#viewers-frozen-per-second)
  const hasFrozen = tl.viewersFrozen?.some((v) => v !== null) === true;
  if (!hasFrozen) noData("chart-frozen", "this report has no per-second freeze figures");
  else
    plot(
      "chart-frozen",
      {
        scales: { x: { time: false }, viewers: { range: (_u, _lo, hi) => [0, Math.max(1, hi)] } },
        axes: [{ label: "seconds since the first viewer's start" }, { scale: "viewers", label: "viewers" }],
        series: [
          { label: "t (s)" },
          line("viewers frozen", RED, "viewers", { value: fixed(2) }),
          line("active viewers", BLUE, "viewers", { value: fixed(0) }),
        ],
      },
      [tl.t, tl.viewersFrozen, tl.active],
    );

  // 3 and 4. one-way delay: histogram (stepped) and CDF, log-scaled delay axis
  const delaySeries = (paths, digits) => [
    { label: "delay (ms)", value: fixed(3) },
    line("all frames", BLUE, "y", { paths, value: fixed(digits) }),
    line("keyframes", RED, "y", { paths, value: fixed(digits) }),
    line("delta frames", GREEN, "y", { paths, value: fixed(digits) }),
  ];
  const logX = { x: { time: false, distr: 3, log: 10 } };
  const h = ch.delayHistogram;
  if (h === null) noData("chart-delay-hist", data.noDelayReason);
  else
    plot(
      "chart-delay-hist",
      {
        scales: { ...logX, y: { range: (_u, _lo, hi) => [0, Math.max(1, hi)] } },
        axes: [{ label: "one-way delay, ms (log)" }, { label: "% of the series' samples" }],
        series: delaySeries(uPlot.paths.stepped({ align: 1 }), 2),
      },
      [h.ms, h.all, h.keyframes, h.deltaFrames],
    );
  const c = ch.delayCdf;
  if (c === null) noData("chart-delay-cdf", data.noDelayReason);
  else
    plot(
      "chart-delay-cdf",
      {
        scales: { ...logX, y: { range: [0, 100] } },
        axes: [{ label: "one-way delay, ms (log)" }, { label: "cumulative %" }],
        series: delaySeries(undefined, 1),
      },
      [c.ms, c.all, c.keyframes, c.deltaFrames],
    );

  // 5. join time per viewer in start order (points only)
  const j = ch.joins;
  const failed = j.joinMs.filter((v) => v === null).length;
  if (j.order.length === 0) noData("chart-joins", "no viewer ran");
  else if (failed === j.order.length) noData("chart-joins", "no viewer joined");
  else {
    if (failed > 0) {
      const title = document.getElementById("chart-joins").parentElement.querySelector("h3");
      title.textContent += ` (${failed} of ${j.order.length} did not join)`;
    }
    plot(
      "chart-joins",
      {
        scales: { x: { time: false }, y: { range: (_u, _lo, hi) => [0, Math.max(1, hi * 1.05)] } },
        axes: [{ label: "viewer, in start order" }, { label: "join (first keyframe), ms" }],
        series: [
          { label: "viewer #", value: fixed(0) },
          {
            label: "join ms",
            stroke: BLUE,
            fill: BLUE,
            paths: () => null,
            points: { show: true, size: 7, fill: BLUE },
            value: fixed(0),
          },
          { label: "start (s)", show: false, value: fixed(2) },
          { label: "viewer id", show: false, value: fixed(0) },
        ],
      },
      [j.order, j.joinMs, j.startS, j.viewerId],
    );
  }

  // 6. with cohorts: each cohort's one-way delay CDF on one chart, the unimpaired viewers last
  const cc = ch.cohortDelayCdf;
  if (cc === null) noData("chart-cohort-delay", data.noDelayReason);
  else if (cc !== undefined) {
    const PALETTE = [RED, ORANGE, GREEN, "#7b3fa0", "#00838f", "#8d6e63", "#c2185b", "#558b2f"];
    const colour = (name, i) => (name === "unimpaired" ? "#333" : PALETTE[i % PALETTE.length]);
    plot(
      "chart-cohort-delay",
      {
        scales: { ...logX, y: { range: [0, 100] } },
        axes: [{ label: "one-way delay, ms (log)" }, { label: "cumulative % of the cohort's samples" }],
        series: [
          { label: "delay (ms)", value: fixed(3) },
          ...cc.names.map((name, i) => line(name, colour(name, i), "y", { value: fixed(1) })),
        ],
      },
      [cc.ms, ...cc.cdf],
      { cohorts: cc.names },
    );
  }

  finish();
})();
