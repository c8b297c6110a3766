// Writing the HTML report (`<stem>.html`, mode 0600) beside the JSON and the Markdown: uPlot's
// minified build, its stylesheet and licence are read from the installed package and inlined
// with the page script, so the file needs nothing else to open.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DelayDistribution } from "../../core/report/distribution.ts";
import { type HtmlAssets, reportToHtml } from "../../core/report/html.ts";
import type { Report } from "../../core/report/types.ts";
import { writeAtomic } from "./write-report.ts";

let assets: Promise<HtmlAssets> | null = null;

/** The inlined texts, read once per process. */
export function htmlAssets(): Promise<HtmlAssets> {
  if (assets === null) {
    const require = createRequire(import.meta.url);
    const uplotDir = dirname(dirname(require.resolve("uplot/dist/uPlot.iife.min.js")));
    const here = dirname(fileURLToPath(import.meta.url));
    assets = Promise.all([
      readFile(join(uplotDir, "dist", "uPlot.iife.min.js"), "utf8"),
      readFile(join(uplotDir, "dist", "uPlot.min.css"), "utf8"),
      readFile(join(uplotDir, "LICENSE"), "utf8"),
      readFile(join(here, "html-charts.browser.js"), "utf8"),
    ]).then(([chartJs, chartCss, chartLicense, pageJs]) => ({ chartJs, chartCss, chartLicense, pageJs }));
  }
  return assets;
}

export async function renderHtmlReport(
  report: Report,
  distribution: DelayDistribution | null,
): Promise<string> {
  return reportToHtml(report, distribution, await htmlAssets());
}

/** Writes `<dir>/<stem>.html` under a temporary name, then renames it; returns the path. */
export async function writeHtmlReport(dir: string, stem: string, html: string): Promise<string> {
  const path = join(dir, `${stem}.html`);
  await writeAtomic(path, html);
  return path;
}
