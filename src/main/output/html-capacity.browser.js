// The capacity page's script (runs in the browser after uPlot and html-plot.browser.js): one chart
// per figure against viewers, a point per step coloured by its outcome (pass, fail, client-bound
// or no verdict) on a grey line through the steps in viewer order, the threshold as a dashed
// line, and the knee (the last passing count) as a vertical line.
(() => {
  const { data, noData, plot, line, dots, fixed, finish } = window.whipbenchPlot;
  const COLOURS = { pass: "#2e8b57", fail: "#c0392b", client: "#7f8c8d", "no-verdict": "#7f8c8d" };
  const OUTCOMES = ["pass", "fail", "client", "no-verdict"];
  const KNEE = "#1f6fb4";

  const kneeLine = (u) => {
    if (data.knee === null) return;
    const x = u.valToPos(data.knee, "x", true);
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = KNEE;
    ctx.fillStyle = KNEE;
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.fillText(`knee ${data.knee}`, x + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
    ctx.restore();
  };

  for (const c of data.charts) {
    if (c.points.length === 0) {
      noData(c.id, "no step has this figure");
      continue;
    }
    const pts = [...c.points].sort((a, b) => a.viewers - b.viewers);
    const xs = pts.map((p) => p.viewers);
    const columns = [xs, pts.map((p) => p.value)];
    const series = [
      { label: "viewers", value: fixed(0) },
      line("step", "#9aa5b1", "y", { points: { show: false }, value: fixed(3) }),
    ];
    for (const o of OUTCOMES) {
      if (!pts.some((p) => p.outcome === o)) continue;
      columns.push(pts.map((p) => (p.outcome === o ? p.value : null)));
      series.push(dots(o, COLOURS[o], 9, { value: fixed(3) }));
    }
    if (c.line !== undefined) {
      columns.push(xs.map(() => c.line));
      series.push(
        line("threshold", "#c0392b", "y", {
          dash: [6, 4],
          width: 1.5,
          points: { show: false },
          value: fixed(3),
        }),
      );
    }
    const xMax = Math.max(...xs, data.knee ?? 0);
    plot(
      c.id,
      {
        scales: {
          x: { time: false, range: () => [0, xMax * 1.05 + 1] },
          y: { range: (_u, _lo, hi) => [0, hi > 0 ? hi * 1.1 : 1] },
        },
        axes: [{ label: "viewers" }, { label: c.title }],
        series,
        hooks: { draw: [kneeLine] },
      },
      columns,
      { steps: pts.length, threshold: c.line !== undefined, knee: data.knee },
    );
  }
  finish();
})();
