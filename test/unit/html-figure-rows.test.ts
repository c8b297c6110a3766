// The HTML rows of one figure each come from the figure registry's declarations (their
// `htmlRow`), as the Markdown's summary rows come from `row`: labelled with the declaration's
// HTML label, read at its report key, placed among the rows written by hand (those combine
// several figures in a sentence and keep the declaration's reason or label).
import assert from "node:assert/strict";
import { test } from "node:test";
import { FIGURE_REGISTRY } from "../../src/core/figures/registry.ts";
import type { HtmlTable } from "../../src/core/figures/types.ts";
import { fmtFixed } from "../../src/core/go-compat/fmt.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { figureRows, renderSection } from "../../src/core/report/html-render.ts";
import { makeInput, makeViewer } from "./report-fixtures.ts";

const MEASURED_MS = 30_000;
const FROZEN_MS = [0, 300, 900];
const END_GAP_MS = [33, 41, 52];

/** Three joined VP8 viewers that showed frames, each frozen and ending as the lists say. */
function report() {
  const viewers = FROZEN_MS.map((frozenMs, i) =>
    makeViewer(i, {
      render: {
        finder: "frame-id",
        framesShown: 900,
        freezes: i,
        frozenMs,
        longestFreezeMs: frozenMs,
        measuredMs: MEASURED_MS,
        endGapMs: END_GAP_MS[i] ?? 0,
      },
    }),
  );
  return buildReport(makeInput(viewers));
}

/** The facts table of the render card: [label, value] per row, in order, entities undone. */
function factRows(html: string): [string, string][] {
  const table = /<table class="facts">(.*?)<\/table>/.exec(html)?.[1] ?? "";
  const undo = (t: string) => t.replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  return [...table.matchAll(/<th scope="row">(.*?)<\/th><td>(.*?)<\/td>/g)].map((m) => [
    undo(m[1] ?? ""),
    undo(m[2] ?? ""),
  ]);
}

const declared = (table: HtmlTable) => FIGURE_REGISTRY.filter((d) => d.htmlRow?.table === table);

test("each declaration with an htmlRow gives one row, with its HTML label, at its declared place", () => {
  const rows = factRows(renderSection(report()));
  const decls = declared("render");
  assert.ok(decls.length > 0, "no declaration has an HTML row in the render table");
  for (const d of decls) {
    assert.equal(typeof d.html, "string", `${d.name}: an HTML row needs an HTML label, not a reason`);
    const at = rows.findIndex(([label]) => label === d.html);
    assert.equal(at, d.htmlRow?.at, `${d.name}: its row is not at its declared place`);
    assert.equal(rows.filter(([label]) => label === d.html).length, 1, `${d.name}: not one row`);
  }
  const places = figureRows(report(), "render").map(([at]) => at);
  assert.equal(new Set(places).size, places.length, "two declarations share a place");
});

test("a row reads its summary at the declaration's report key, in its unit", () => {
  const rows = new Map(factRows(renderSection(report())));
  const shares = FROZEN_MS.map((ms) => (100 * ms) / MEASURED_MS);
  assert.equal(rows.get("frozen share max"), `${fmtFixed(Math.max(...shares), 2)}%`);
  const gap = (v: number) => `${fmtFixed(v, 0)} ms`;
  const end = rows.get("end gap (last frame shown → end)");
  assert.equal(end, `p50 ${gap(END_GAP_MS[1] ?? 0)}, max ${gap(Math.max(...END_GAP_MS))}`);
});

test("the rows written by hand stay: a sentence of several figures is no declaration's row", () => {
  const labels = factRows(renderSection(report())).map(([label]) => label);
  const generated = new Set(declared("render").map((d) => d.html));
  const byHand = labels.filter((l) => !generated.has(l));
  assert.deepEqual(byHand, [
    "viewers judged",
    "frames",
    "freezes",
    "pauses",
    "recovery (broken chain → next frame shown)",
    "PLIs sent",
  ]);
});
