// What `whipbench matrix MATRIX.json --out DIR` does: every server × scenario × repeat in order,
// each cell's report in DIR/<server>/<scenario>/r<k>/, then DIR/matrix.md, .html and .json. A
// finished cell leaves cell.json beside its report; a second call with the same DIR skips those,
// so it resumes where the first stopped. Exit 0: every cell has a verdict; 99: one had a failed
// threshold; 3: a cell did not finish (DNF); 2: a bad matrix file or scenario.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { errorMessage, ScenarioError, UsageError, verdictStatus } from "../../core/errors.ts";
import { repeatComparability } from "../../core/matrix/comparable.ts";
import { matrixHtml } from "../../core/matrix/html.ts";
import { type Matrix, type MatrixServer, parseMatrix, slug } from "../../core/matrix/parse.ts";
import { type CellSummary, cellsOf, matrixMarkdown, type RunOutcome } from "../../core/matrix/table.ts";
import type { Report } from "../../core/report/types.ts";
import { parseScenario, type Scenario } from "../../core/scenario-file/scenario.ts";
import { thresholdsFailed } from "../../core/thresholds/evaluate.ts";
import { FIGURES, readFigure } from "../../core/thresholds/figures.ts";
import { stderrLogger } from "../observe/log.ts";
import { htmlAssets } from "../output/html-report.ts";
import { writeAtomic } from "../output/write-report.ts";
import { tokensHeld } from "../process/tokens.ts";
import { engineFor } from "../run/engine-choice.ts";
import { runAndReport } from "../run/run-and-report.ts";
import { ServerProcess } from "./matrix-server.ts";

export interface MatrixFlags {
  out: string;
  quiet?: boolean;
  workers?: number;
  /** false with --no-html */
  html?: boolean;
}

const CELL_FILE = "cell.json";

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new UsageError(`${what} cannot be read`, undefined, { cause: err });
  }
}

/** Every (server, scenario) scenario, checked before anything runs. */
async function scenarios(m: Matrix, matrixPath: string): Promise<Map<string, Scenario>> {
  const out = new Map<string, Scenario>();
  for (const [j, sc] of m.scenarios.entries()) {
    let base: Record<string, unknown>;
    if (sc.file !== undefined) {
      const text = await readText(resolve(dirname(matrixPath), sc.file), `matrix: scenarios[${j}].file`);
      try {
        base = JSON.parse(text) as Record<string, unknown>;
      } catch (err) {
        throw new UsageError(`matrix: scenarios[${j}].file: not JSON`, undefined, { cause: err });
      }
      delete base.whip;
      delete base.whep;
    } else {
      base = sc.scenario ?? {};
    }
    for (const s of m.servers) {
      const merged: Record<string, unknown> = {
        ...base,
        ...(s.whip !== undefined ? { whip: s.whip } : {}),
        whep: s.whep,
      };
      if (merged.name === undefined) merged.name = `${s.name}-${sc.name}`;
      try {
        out.set(key(s.name, sc.name), parseScenario(JSON.stringify(merged)));
      } catch (err) {
        if (err instanceof ScenarioError) {
          throw new UsageError(
            `matrix: scenarios[${j}] (${sc.name}) with server ${s.name}: ${err.message}`,
            undefined,
            { cause: err },
          );
        }
        throw err;
      }
    }
  }
  return out;
}

function key(server: string, scenario: string): string {
  return JSON.stringify([server, scenario]);
}

/** A finished repeat's outcome; null when there is none, or it predates `comparable` (it runs again). */
async function readCell(dir: string): Promise<RunOutcome | null> {
  try {
    const outcome = JSON.parse(await readFile(join(dir, CELL_FILE), "utf8")) as Partial<RunOutcome>;
    return typeof outcome.comparable === "boolean" ? (outcome as RunOutcome) : null;
  } catch {
    return null;
  }
}

/**
 * Runs one repeat of a cell in `dir` and returns its outcome (cell.json written unless interrupted
 * or failed).
 */
async function runCell(
  opts: { m: Matrix; out: string; flags: MatrixFlags; server: string; scenario: string; repeat: number },
  s: Scenario,
  dir: string,
): Promise<RunOutcome> {
  const log = stderrLogger(opts.flags.quiet ?? false);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const withWorkers = opts.flags.workers !== undefined ? { ...s, workers: opts.flags.workers } : s;
  const base = { server: opts.server, scenario: opts.scenario, repeat: opts.repeat, thresholdsFailed: false };
  const dnf = (verdict: string): RunOutcome => ({
    ...base,
    valid: false,
    verdict,
    comparable: false,
    notComparableReason: verdict,
  });
  const code = await runAndReport({
    command: "run",
    scenario: withWorkers,
    out: dir,
    log,
    // a cell shows no progress line: the matrix logs its cells
    engine: engineFor(withWorkers, false, log),
    html: opts.flags.html ?? true,
    // the verdict is already in the log; the headline and file lines stay in the cell's report
    stdout: () => {},
  });
  const files = await readdir(dir);
  const json = files.find((f) => f.endsWith(".json") && f !== CELL_FILE);
  if (json === undefined) return dnf(`no report (exit ${code})`);
  const report = JSON.parse(await readFile(join(dir, json), "utf8")) as Report;
  const stem = json.slice(0, -".json".length);
  const rel = (f: string) => relative(opts.out, join(dir, f));
  const outcome: RunOutcome = {
    ...base,
    reportMd: rel(`${stem}.md`),
    ...(files.includes(`${stem}.html`) ? { reportHtml: rel(`${stem}.html`) } : {}),
    valid: report.aggregate.valid,
    verdict: report.aggregate.verdict,
    value: readFigure(report, opts.m.figure),
    thresholdsFailed: thresholdsFailed(report),
    ...repeatComparability(report, opts.m.figure),
  };
  if (report.interrupted !== true)
    await writeAtomic(join(dir, CELL_FILE), `${JSON.stringify(outcome, null, 2)}\n`);
  return outcome;
}

export async function matrixCommand(file: string, flags: MatrixFlags): Promise<number> {
  const m: Matrix = parseMatrix(await readText(file, "the matrix file"));
  const byCell = await scenarios(m, file);
  const log = stderrLogger(flags.quiet ?? false);
  await mkdir(flags.out, { recursive: true });
  let stopping = false;
  const onSignal = () => {
    stopping = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const outcomes: RunOutcome[] = [];
  const ctx: MatrixContext = {
    m,
    flags,
    byCell,
    outcomes,
    log,
    stopping: () => stopping,
    // relative paths in a server's commands mean the same wherever whipbench is started
    cwd: dirname(resolve(file)),
    secrets: bearerSecrets(byCell),
  };
  try {
    for (const server of m.servers) {
      if (stopping) break;
      await runServer(ctx, server);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const unit = FIGURES.get(m.figure)?.unit ?? "";
  const cells = cellsOf(m, outcomes, unit);
  const md = matrixMarkdown(m, cells, unit);
  await writeAtomic(join(flags.out, "matrix.md"), md);
  await writeAtomic(join(flags.out, "matrix.html"), matrixHtml(m, cells, unit, await htmlAssets("matrix")));
  await writeFile(
    join(flags.out, "matrix.json"),
    `${JSON.stringify({ figure: m.figure, outcomes, cells: cellRecords(m, cells) }, null, 2)}\n`,
    { mode: 0o600 },
  );
  process.stdout.write(md);
  process.stdout.write(`wrote ${join(flags.out, "matrix.md")}\nwrote ${join(flags.out, "matrix.html")}\n`);
  const finished = !stopping && cells.every((row) => row.every((c) => !c.dnf));
  return verdictStatus(
    finished,
    outcomes.some((opts) => opts.thresholdsFailed),
  );
}

/** matrix.json's cells: what each ranks on (docs/definitions.md#matrix-ranking). */
function cellRecords(m: Matrix, cells: CellSummary[][]) {
  return m.servers.flatMap((s, i) =>
    m.scenarios.map((sc, j) => {
      const c = cells[i]?.[j];
      return {
        server: s.name,
        scenario: sc.name,
        repeats: c?.repeats ?? 0,
        comparable: c?.comparable ?? 0,
        ...(c?.median !== undefined ? { median: c.median, min: c.min, max: c.max } : {}),
        text: c?.text ?? "not run",
      };
    }),
  );
}

interface MatrixContext {
  m: Matrix;
  flags: MatrixFlags;
  byCell: Map<string, Scenario>;
  outcomes: RunOutcome[];
  log: ReturnType<typeof stderrLogger>;
  stopping: () => boolean;
  /** where the servers' commands run */
  cwd: string;
  /** the scenarios' bearer tokens: a server's output quoted in a reason never carries them */
  secrets: string[];
}

function bearerSecrets(byCell: Map<string, Scenario>): string[] {
  const names = new Set([...byCell.values()].flatMap((s) => (s.bearerEnv ? [s.bearerEnv] : [])));
  return tokensHeld(names);
}

async function runServer(ctx: MatrixContext, server: MatrixServer): Promise<void> {
  const { m, flags, byCell, outcomes, log, stopping } = ctx;
  const todo: { scenario: string; repeat: number; dir: string }[] = [];
  for (const sc of m.scenarios) {
    for (let k = 1; k <= m.repeats; k++) {
      const dir = join(flags.out, slug(server.name), slug(sc.name), `r${k}`);
      const done = await readCell(dir);
      if (done !== null) outcomes.push(done);
      else todo.push({ scenario: sc.name, repeat: k, dir });
    }
  }
  const skipped = m.scenarios.length * m.repeats - todo.length;
  if (skipped > 0) log.line(`matrix: ${server.name}: ${skipped} cell run(s) already done, skipped`);
  if (todo.length === 0) return;
  const proc = new ServerProcess(server, ctx.cwd, ctx.secrets);
  const serverDir = join(flags.out, slug(server.name));
  await mkdir(serverDir, { recursive: true });
  try {
    try {
      await proc.start(join(serverDir, "server.log"), m.healthTimeoutSeconds);
    } catch (err) {
      const why = `server ${server.name} did not start: ${errorMessage(err)}`;
      log.line(`matrix: ${why}`);
      for (const t of todo) {
        outcomes.push({
          server: server.name,
          scenario: t.scenario,
          repeat: t.repeat,
          valid: false,
          verdict: why,
          thresholdsFailed: false,
          comparable: false,
          notComparableReason: why,
        });
      }
      return;
    }
    for (const t of todo) {
      if (stopping()) return;
      log.line(`matrix: ${server.name} × ${t.scenario}, repeat ${t.repeat}`);
      const s = byCell.get(key(server.name, t.scenario));
      // internal: invariant, scenarios() made one scenario per cell before any ran
      if (s === undefined) throw new Error("internal error: a cell without its scenario");
      outcomes.push(
        await runCell(
          { m, out: flags.out, flags, server: server.name, scenario: t.scenario, repeat: t.repeat },
          s,
          t.dir,
        ),
      );
    }
  } finally {
    await proc.stop();
  }
}
