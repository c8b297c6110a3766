// Headless Chromium (Debian's `chromium`) through playwright-core, for the HTML page tests (the
// run report, the capacity and matrix pages): opens a file, collects console errors, page errors
// and every non-file request, and reads what the page's charts drew.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { chromium, type Page } from "playwright-core";

/** The browser binary: $CHROMIUM_PATH, else Debian's /usr/bin/chromium; null when absent. */
export function chromiumPath(): string | null {
  for (const p of [process.env["CHROMIUM_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (p && existsSync(p)) return p;
  }
  return null;
}

export interface ChartDrawn {
  points: number;
  series: number;
  canvas?: boolean;
  reason?: string;
}

export interface PageResult {
  charts: Record<string, ChartDrawn>;
  /** console errors and warnings, page errors */
  problems: string[];
  /** every request that was not for the file itself */
  requests: string[];
  /** body text, for spot checks */
  text: string;
  /** what `probe` returned */
  probed?: unknown;
}

export async function openReport(
  executablePath: string,
  file: string,
  screenshot?: string,
  /** runs on the drawn page (hover a chart, read its legend) */
  probe?: (page: Page) => Promise<unknown>,
): Promise<PageResult> {
  const browser = await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    const url = pathToFileURL(file).href;
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      if (r.url() !== url) requests.push(r.url());
    });
    await page.goto(url);
    await page.waitForSelector('html[data-charts="drawn"]', { timeout: 15_000 });
    const charts = (await page.evaluate("window.whipbenchCharts")) as Record<string, ChartDrawn>;
    const text = (await page.evaluate("document.body.innerText")) as string;
    const probed = probe ? await probe(page) : undefined;
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
    return { charts, problems, requests, text, ...(probe ? { probed } : {}) };
  } finally {
    await browser.close();
  }
}
