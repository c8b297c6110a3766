// The matrix page's script (runs in the browser after uPlot and html-plot.browser.js): one chart
// per scenario, a slot per server along x. In a server's slot its comparable repeats (blue) sit
// left of centre, their median (black) on the centre with a bar over their range, and its
// not-comparable repeats (orange) to the right, apart: they are shown, not ranked.
(() => {
  const { data, noData, plot, dots, fixed, finish } = window.whipbenchPlot;
  const BLUE = "#1f6fb4";
  const ORANGE = "#d07a00";
  const BLACK = "#1d232a";
  const digits = data.unit === "%" ? 3 : 1;

  /** n positions spread over [from, to] (the middle one when n is 1). */
  const spread = (n, from, to) =>
    Array.from({ length: n }, (_v, k) => (n === 1 ? (from + to) / 2 : from + ((to - from) * k) / (n - 1)));

  for (const chart of data.charts) {
    const rows = [];
    let comparable = 0;
    let apart = 0;
    chart.servers.forEach((s, i) => {
      const xs = spread(s.comparable.length, i - 0.3, i - 0.08);
      s.comparable.forEach((p, k) => {
        rows.push([xs[k], p.value, null, null, p.repeat]);
      });
      if (s.median !== undefined) rows.push([i, null, s.median, null, null]);
      const ys = spread(s.notComparable.length, i + 0.15, i + 0.35);
      s.notComparable.forEach((p, k) => {
        rows.push([ys[k], null, null, p.value, p.repeat]);
      });
      comparable += s.comparable.length;
      apart += s.notComparable.length;
    });
    if (rows.length === 0) {
      noData(chart.id, "no server gave the figure for this scenario");
      continue;
    }
    rows.sort((a, b) => a[0] - b[0]);
    const columns = [0, 1, 2, 3, 4].map((c) => rows.map((r) => r[c]));
    const names = chart.servers.map((s) => s.name);
    // the range of each server's comparable repeats, a bar with caps through the median
    const rangeBars = (u) => {
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = BLACK;
      ctx.lineWidth = 2 * devicePixelRatio;
      chart.servers.forEach((s, i) => {
        if (s.min === undefined || s.max === undefined) return;
        const x = u.valToPos(i, "x", true);
        const [y0, y1] = [u.valToPos(s.min, "y", true), u.valToPos(s.max, "y", true)];
        const cap = 6 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(x, y0);
        ctx.lineTo(x, y1);
        ctx.moveTo(x - cap, y0);
        ctx.lineTo(x + cap, y0);
        ctx.moveTo(x - cap, y1);
        ctx.lineTo(x + cap, y1);
        ctx.stroke();
      });
      ctx.restore();
    };
    plot(
      chart.id,
      {
        scales: {
          x: { time: false, range: () => [-0.6, names.length - 0.4] },
          y: { range: (_u, _lo, hi) => [0, Math.max(1e-9, hi) * 1.1] },
        },
        axes: [
          {
            label: "server",
            splits: () => names.map((_n, i) => i),
            values: (_u, splits) => splits.map((v) => names[v] ?? ""),
            grid: { show: false },
          },
          { label: data.figure },
        ],
        series: [
          {
            label: "server",
            value: (_u, v) => (v === null || v === undefined ? "–" : (names[Math.round(v)] ?? "")),
          },
          dots("comparable repeat", BLUE, 8, { value: fixed(digits) }),
          dots("median (comparable)", BLACK, 12, { value: fixed(digits) }),
          dots("not comparable (not ranked)", ORANGE, 8, { value: fixed(digits) }),
          { label: "repeat", show: false, value: fixed(0) },
        ],
        hooks: { draw: [rangeBars] },
      },
      columns,
      { comparable, notComparable: apart, servers: names.length },
    );
  }
  finish();
})();
