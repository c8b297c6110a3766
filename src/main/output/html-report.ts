// Writing the HTML report (`<stem>.html`, mode 0600) beside the JSON and the Markdown: uPlot's
// minified build, its stylesheet and licence are read from the installed package and inlined
// with the page scripts, so the file needs nothing else to open. The capacity and matrix pages
// take their texts from here too (`htmlAssets("capacity")`, `htmlAssets("matrix")`).

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DelayDistribution } from "../../core/report/distribution.ts";
import { type HtmlAssets, reportToHtml } from "../../core/report/html.ts";
import type { Report } from "../../core/report/types.ts";

/** The pages and their own scripts; each runs after html-plot.browser.js, which they all share. */
const PAGE_SCRIPTS = {
  report: "html-charts.browser.js",
  capacity: "html-capacity.browser.js",
  matrix: "html-matrix.browser.js",
} as const;
export type HtmlPageKind = keyof typeof PAGE_SCRIPTS;

const assets = new Map<HtmlPageKind, Promise<HtmlAssets>>();

/** The inlined texts of one kind of page, read once per process. */
export function htmlAssets(page: HtmlPageKind = "report"): Promise<HtmlAssets> {
  let a = assets.get(page);
  if (a === undefined) {
    const require = createRequire(import.meta.url);
    const uplotDir = dirname(dirname(require.resolve("uplot/dist/uPlot.iife.min.js")));
    const here = dirname(fileURLToPath(import.meta.url));
    a = Promise.all([
      readFile(join(uplotDir, "dist", "uPlot.iife.min.js"), "utf8"),
      readFile(join(uplotDir, "dist", "uPlot.min.css"), "utf8"),
      readFile(join(uplotDir, "LICENSE"), "utf8"),
      readFile(join(here, "html-plot.browser.js"), "utf8"),
      readFile(join(here, PAGE_SCRIPTS[page]), "utf8"),
    ]).then(([chartJs, chartCss, chartLicense, shared, own]) => ({
      chartJs,
      chartCss,
      chartLicense,
      pageJs: `${shared}\n${own}`,
    }));
    assets.set(page, a);
  }
  return a;
}

export async function renderHtmlReport(
  report: Report,
  distribution: DelayDistribution | null,
): Promise<string> {
  return reportToHtml(report, distribution, await htmlAssets());
}
