// What `whipbench capacity SCENARIO.json` does (docs/definitions.md#capacity): the search, then the capacity
// report as JSON (schema whipbench.capacity/v0), Markdown and HTML, each step's own report in a
// folder beside them; exit 0 (a knee or max), 99 (even start fails), 3 (client-bound, no verdict).
import { join } from "node:path";
import { capacityToHtml } from "../../core/capacity/html.ts";
import { capacityToMarkdown } from "../../core/capacity/markdown.ts";
import { capacityMethod } from "../../core/capacity/method.ts";
import { capacityExitCode } from "../../core/capacity/search.ts";
import { CAPACITY_DEFAULTS, type CapacityReport } from "../../core/capacity/types.ts";
import { takeWallAnchor, wallNowUnixNs } from "../../core/clock/clock.ts";
import { RunError, UsageError } from "../../core/errors.ts";
import { fileStamp, rfc3339Nano } from "../../core/go-compat/fmt.ts";
import { host } from "../../core/redact.ts";
import type { CeilingThresholds } from "../../core/report/ceiling.ts";
import { sanitiseName } from "../../core/report/headline.ts";
import type { ReceivePath } from "../../core/scenario/defaults.ts";
import { capacityScenario } from "../../core/scenario-file/capacity.ts";
import { figureOfKey } from "../../core/thresholds/cohort-figures.ts";
import { stderrLogger } from "../observe/log.ts";
import {
  ServerWatch,
  type ServerWatchFlags,
  type ServerWatchOptions,
  serverWatchOptions,
} from "../observe/server-watch.ts";
import { htmlAssets } from "../output/html-report.ts";
import { prepareOutputDir, writeAtomic, writeErrorText } from "../output/write-report.ts";
import { endWithError, withInterrupt } from "../process/exit.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import { version } from "../process/version.ts";
import { engineFor } from "../run/engine-choice.ts";
import {
  applyKeyFlags,
  applyOverrides,
  type PushFlags,
  pushFrom,
  readScenarioText,
  type ScenarioKeyFlags,
  validated,
} from "../run/run-inputs.ts";
import { capacityRun, type ServerSampler } from "./capacity-run.ts";

export interface CapacityFlags
  extends ServerWatchFlags,
    PushFlags,
    Omit<ScenarioKeyFlags, "viewers" | "hold"> {
  out: string;
  workers?: number;
  receivePath?: ReceivePath;
  json?: boolean;
  quiet?: boolean;
  /** false with --no-html */
  html?: boolean;
}

/**
 * What the command line cannot give: the server watch (flags parsed by the caller) and, for tests,
 * the ceiling.
 */
export interface CapacityExtras {
  server?: {
    sampler: ServerSampler;
    describe: NonNullable<CapacityReport["serverWatch"]>;
    stop(): Promise<void>;
  };
  ceiling?: CeilingThresholds;
  stdout?: (line: string) => void;
}

export async function capacityCommand(
  file: string,
  flags: CapacityFlags,
  extras: CapacityExtras = {},
): Promise<number> {
  const log = stderrLogger(flags.quiet ?? false);
  const given = capacityScenario(await readScenarioText(file));
  for (const note of given.notes) log.line(note);
  const keyed = applyKeyFlags(given.scenario, flags);
  if (keyed.set.length > 0) log.line(`scenario keys set by flags: ${keyed.set.join(", ")}`);
  const s = validated(applyOverrides(keyed.scenario, flags));
  if ((s.thresholds ?? []).length === 0) {
    throw new UsageError("thresholds: the scenario has none; capacity needs them (they define passing)");
  }
  const spec = s.capacity ?? CAPACITY_DEFAULTS;
  const bearer = tokenFromEnv("--bearer-env", s.bearerEnv, "capacity");
  const watchOpts = serverWatchOptions(flags);
  const push = pushFrom(flags);
  try {
    await prepareOutputDir(flags.out);
  } catch (err) {
    return endWithError(
      new RunError(`--out ${flags.out}: ${writeErrorText(err)}`, { cause: err }),
      "capacity",
    );
  }
  const anchor = takeWallAnchor();
  const startedAt = wallNowUnixNs(anchor);
  const name = sanitiseName(s.name ?? "");
  const stem = `whipbench-capacity-${fileStamp(startedAt)}${name === "" ? "" : `-${name}`}`;
  // a capacity search shows no progress line: its steps log their own
  const engine = engineFor(s, false, log, true, spec.max);
  const server = extras.server ?? (watchOpts ? await startServerWatch(watchOpts) : undefined);
  log.line(
    `capacity search: start ${spec.start}, max ${spec.max}, growth ${spec.growth}, resolution ${spec.resolution}`,
  );
  return withInterrupt(log, async (interrupt) => {
    let ran: Awaited<ReturnType<typeof capacityRun>>;
    try {
      ran = await capacityRun({
        scenario: s,
        spec,
        bearer,
        engine,
        log,
        interrupt,
        stepDir: { path: join(flags.out, `${stem}-steps`), relative: `${stem}-steps` },
        server: server?.sampler,
        push,
        ...(extras.ceiling ? { ceiling: extras.ceiling } : {}),
      });
    } finally {
      await server?.stop();
    }
    const report: CapacityReport = {
      schema: "whipbench.capacity/v0",
      whipbenchVersion: version(),
      startedAt: rfc3339Nano(startedAt),
      finishedAt: rfc3339Nano(wallNowUnixNs(anchor)),
      ...(interrupt.aborted ? { interrupted: true } : {}),
      scenario: {
        ...(s.name ? { name: s.name } : {}),
        ...(s.codec ? { codec: s.codec } : {}),
        rampSeconds: s.rampSeconds,
        workers: engine.workers,
      },
      capacity: spec,
      thresholds: (s.thresholds ?? []).map((t) => ({
        figure: t.figure,
        condition: t.condition.text,
        value: t.condition.value,
        unit: figureOfKey(t.figure)?.unit ?? "",
      })),
      ...(server ? { serverWatch: server.describe } : {}),
      result: ran.search.result(ran.wallSeconds),
      steps: ran.steps,
      method: capacityMethod(spec),
    };
    const files = await writeCapacity(flags, stem, report);
    const out = extras.stdout ?? ((line: string) => process.stdout.write(`${line}\n`));
    const human = flags.json ? (line: string) => process.stderr.write(`${line}\n`) : out;
    human(report.result.summary);
    for (const f of files) human(`wrote ${f}`);
    if (flags.json) out(JSON.stringify(report));
    return capacityExitCode(report.result);
  });
}

/** The server watch the flags ask for, as the search reads it: only the watched figures per step. */
async function startServerWatch(opts: ServerWatchOptions): Promise<NonNullable<CapacityExtras["server"]>> {
  const watch = await ServerWatch.start(opts);
  return {
    sampler: {
      window(from, to) {
        const w = watch.window(from, to);
        return {
          ...(opts.pid !== undefined ? { cpuCores: w.cpuCores, rssMiB: w.rssMiB } : {}),
          ...(opts.metricsUrl !== undefined ? { series: w.series } : {}),
        };
      },
    },
    describe: {
      ...(opts.pid !== undefined ? { pid: opts.pid } : {}),
      ...(opts.metricsUrl !== undefined
        ? { metricsHost: host(opts.metricsUrl), series: opts.series ?? [] }
        : {}),
    },
    stop: () => watch.stop(),
  };
}

async function writeCapacity(flags: CapacityFlags, stem: string, r: CapacityReport): Promise<string[]> {
  const files = [join(flags.out, `${stem}.json`), join(flags.out, `${stem}.md`)];
  await writeAtomic(files[0] as string, `${JSON.stringify(r, null, 2)}\n`);
  await writeAtomic(files[1] as string, capacityToMarkdown(r));
  if (flags.html ?? true) {
    const html = join(flags.out, `${stem}.html`);
    await writeAtomic(html, capacityToHtml(r, await htmlAssets("capacity")));
    files.push(html);
  }
  return files;
}
