// The agent's plumbing (docs/definitions.md#many-hosts): reaching the coordinator, sending a
// share's results over the wire, and the local report when the coordinator is gone.
import { lookup } from "node:dns/promises";
import { connect, type Socket } from "node:net";
import { EXIT_ERROR, EXIT_NO_VERDICT, errorMessage } from "../../core/errors.ts";
import { reportStem } from "../../core/report/headline.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { Logger } from "../observe/log.ts";
import { finishReport, jsonOutput, markdownOutput } from "../output/outputs.ts";
import type { ShareOutcome } from "./agent-share.ts";
import { agentFigures } from "./host-merge.ts";
import { shiftRecordInstants } from "./record-clock.ts";
import type { Conn } from "./wire.ts";

const RECORDS_PER_FRAME = 50;

/** How long and how often the agent tries to reach the coordinator (stated in `agent --help`). */
export const CONNECT_WAIT_MS = 120_000;
export const CONNECT_RETRY_MS = 1000;

/** `host:port`, an IPv6 host in brackets (hosts are all a log line may name). */
export function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A name resolves once, so every clock probe goes to an address (no lookup between t1 and the send). */
async function resolve(host: string): Promise<string | null> {
  try {
    return (await lookup(host)).address;
  } catch {
    return null;
  }
}

export async function dial(
  host: string,
  port: number,
  waitMs: number,
  log: Logger,
): Promise<{ sock: Socket; address: string } | null> {
  const until = Date.now() + waitMs;
  let said = false;
  for (;;) {
    const address = await resolve(host);
    const sock =
      address === null
        ? null
        : await new Promise<Socket | null>((done) => {
            const s = connect({ host: address, port });
            s.once("connect", () => done(s));
            s.once("error", () => done(null));
          });
    if (sock && address !== null) return { sock, address };
    if (Date.now() >= until) return null;
    if (!said) {
      const why = address === null ? "its name does not resolve" : "nothing answers there";
      log.line(
        `the coordinator at ${hostPort(host, port)} is not reachable yet (${why}); retrying every ${CONNECT_RETRY_MS / 1000} s for up to ${Math.round(waitMs / 1000)} s`,
      );
    }
    said = true;
    await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
  }
}

/** The records (instants relative to t0), in chunks, then this host's own figures. */
export function sendResults(conn: Conn, opts: ShareOutcome): void {
  const wire = opts.records.map((r) => shiftRecordInstants(r, -opts.t0MonoNs));
  for (let i = 0; i < wire.length; i += RECORDS_PER_FRAME) {
    conn.send({ type: "records", records: wire.slice(i, i + RECORDS_PER_FRAME) });
  }
  conn.send({ type: "done", profiles: opts.profiles, figures: agentFigures(opts.input) });
}

/** The coordinator is gone: this host's viewers in a report of their own (same writer as a run). */
export async function writeLocal(out: string, input: ReportInput, log: Logger): Promise<number> {
  try {
    const { files } = await finishReport({
      input: { ...input, interrupted: true },
      log,
      dir: out,
      stem: reportStem(input.startedAtUnixNs, `${input.scenario.name ?? "agent"}-local`),
      outputs: [jsonOutput, markdownOutput],
    });
    for (const f of files) process.stdout.write(`wrote ${f}\n`);
    return EXIT_NO_VERDICT;
  } catch (err) {
    process.stderr.write(`whipbench agent: the local report could not be written: ${errorMessage(err)}\n`);
    return EXIT_ERROR;
  }
}
