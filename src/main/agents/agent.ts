// `whipbench agent --coordinator HOST:PORT` (docs/definitions.md#many-hosts): connects (retrying
// while the coordinator is not up yet), says hello, and runs the share it is given. Only viewers
// of the scenario it receives ever run here: the coordinator cannot name a command, a file or a
// publisher. A coordinator that goes away (its connection closes, or it is silent for 5 s) stops
// the viewers; the agent then writes a local report of its own viewers and exits 3.
import type { Socket } from "node:net";
import { hostname } from "node:os";
import { EXIT_ERROR, EXIT_NO_VERDICT, EXIT_OK, errorMessage, UsageError } from "../../core/errors.ts";
import { type Logger, stderrLogger } from "../observe/log.ts";
import { prepareOutputDir } from "../output/write-report.ts";
import { withInterrupt } from "../process/exit.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import { version } from "../process/version.ts";
import { defaultWorkers } from "../run/engine.ts";
import { poolEngine } from "../run/pool-engine.ts";
import { CONNECT_WAIT_MS, dial, hostPort, sendResults, writeLocal } from "./agent-io.ts";
import { AgentShare, agentScenario, type ShareOutcome, type StartMessage, startOk } from "./agent-share.ts";
import { type Conn, frameConn, type Message, PROTOCOL_VERSION, printable, validName } from "./wire.ts";

export interface AgentFlags {
  coordinator: { host: string; port: number };
  workers?: number;
  tokenEnv?: string;
  /** the WHEP bearer of this agent's viewers (a scenario's bearerEnv is not followed) */
  bearerEnv?: string;
  name?: string;
  out: string;
  quiet?: boolean;
  /** keep trying to reach the coordinator this long, ms */
  connectWaitMs?: number;
}

const SILENCE_MS = 5000;

function defaultName(): string {
  const n = hostname()
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 63);
  return n === "" ? "agent" : n;
}

export async function agentCommand(flags: AgentFlags): Promise<number> {
  const token = tokenFromEnv("--token-env", flags.tokenEnv, "agent");
  const bearer = tokenFromEnv("--bearer-env", flags.bearerEnv, "agent");
  const name = flags.name ?? defaultName();
  if (!validName(name)) throw new UsageError("--name: want 1–63 letters, digits, '.', '_' or '-'");
  const log = stderrLogger(flags.quiet ?? false);
  const workers = flags.workers ?? defaultWorkers();
  await prepareOutputDir(flags.out).catch((err: Error) => {
    throw new UsageError(`--out ${flags.out}: ${err.message}`, undefined, { cause: err });
  });
  const { host, port } = flags.coordinator;
  const reached = await dial(host, port, flags.connectWaitMs ?? CONNECT_WAIT_MS, log);
  if (!reached) {
    const waitedS = Math.round((flags.connectWaitMs ?? CONNECT_WAIT_MS) / 1000);
    process.stderr.write(
      `whipbench agent: the coordinator at ${hostPort(host, port)} did not answer within ${waitedS} s\n`,
    );
    return EXIT_ERROR;
  }
  return withInterrupt(
    log,
    (interrupt) =>
      new Promise<number>((resolve) => {
        const opts = { name, token, bearer, workers, host: reached.address, out: flags.out, log, resolve };
        new Session(opts).attach(reached.sock, interrupt);
      }),
  );
}

interface SessionOptions {
  name: string;
  token: string | undefined;
  bearer: string | undefined;
  workers: number;
  host: string;
  out: string;
  log: Logger;
  resolve: (code: number) => void;
}

class Session {
  private readonly opts: SessionOptions;
  private conn: Conn | null = null;
  private share: AgentShare | null = null;
  private ports = { clock: 0, sendLog: 0 };
  private state: "hello" | "welcomed" | "ready" | "running" | "sent" | "over" = "hello";
  private readonly stop = new AbortController();
  private heard = Date.now();
  private watchdog: NodeJS.Timeout | undefined;
  private coordinatorLost = false;
  private interrupted = false;

  constructor(opts: SessionOptions) {
    this.opts = opts;
  }

  attach(sock: Socket, interrupt: AbortSignal): void {
    this.conn = frameConn(
      sock,
      (m) => this.onMessage(m),
      (why) => this.opts.log.line(`the coordinator sent a malformed message (${why}); connection closed`),
      () => this.onClose(),
    );
    this.conn.send({
      type: "hello",
      protocol: PROTOCOL_VERSION,
      version: version(),
      name: this.opts.name,
      workers: this.opts.workers,
      ...(this.opts.token !== undefined ? { token: this.opts.token } : {}),
    });
    this.watchdog = setInterval(() => {
      if (Date.now() - this.heard > SILENCE_MS) sock.destroy();
      this.conn?.send({ type: "ping" });
    }, 1000);
    interrupt.addEventListener("abort", () => {
      this.interrupted = true;
      this.stop.abort();
      if (this.state !== "running") this.end(EXIT_NO_VERDICT);
    });
  }

  private end(code: number): void {
    if (this.state === "over") return;
    this.state = "over";
    clearInterval(this.watchdog);
    this.conn?.close();
    this.opts.resolve(code);
  }

  private onClose(): void {
    if (this.state === "running") {
      this.coordinatorLost = true;
      this.opts.log.line("the coordinator is gone: stopping the viewers; a local report follows");
      this.stop.abort();
    } else if (this.state !== "sent" && this.state !== "over") {
      process.stderr.write("whipbench agent: the coordinator closed the connection before the run\n");
      this.end(EXIT_NO_VERDICT);
    } else {
      this.end(EXIT_OK);
    }
  }

  private onMessage(m: Message): void {
    this.heard = Date.now();
    if (m.type === "ping") return;
    if (this.state === "hello") {
      this.onWelcome(m);
      return;
    }
    if (m.type === "prepare" && this.state === "welcomed") {
      void this.prepare(m.scenario);
      return;
    }
    if (m.type === "start" && this.state === "ready") {
      void this.start(m);
      return;
    }
    if (m.type === "stop") {
      this.stop.abort();
      return;
    }
    if (m.type === "bye") {
      this.end(EXIT_OK);
      return;
    }
    if (m.type === "cancel") {
      this.opts.log.line(`the coordinator cancelled the run: ${printable(m.reason)}`);
      this.end(EXIT_NO_VERDICT);
      return;
    }
  }

  private onWelcome(m: Message): void {
    if (m.type === "refuse") {
      process.stderr.write(`whipbench agent: refused by the coordinator: ${printable(m.reason)}\n`);
      this.end(EXIT_ERROR);
      return;
    }
    const portOk = (p: unknown) => Number.isSafeInteger(p) && (p as number) > 0 && (p as number) < 65536;
    if (m.type !== "welcome" || m.version !== version() || !portOk(m.clockPort) || !portOk(m.sendLogPort)) {
      process.stderr.write("whipbench agent: the coordinator's welcome is not one this agent understands\n");
      this.end(EXIT_ERROR);
      return;
    }
    this.ports = { clock: m.clockPort as number, sendLog: m.sendLogPort as number };
    this.state = "welcomed";
    this.opts.log.line(
      `joined the coordinator as ${this.opts.name} (agent ${Number.isSafeInteger(m.index) ? String(m.index) : "?"})`,
    );
  }

  private async prepare(raw: unknown): Promise<void> {
    try {
      const scenario = agentScenario(raw);
      this.share = new AgentShare({
        scenario,
        coordinatorHost: this.opts.host,
        clockPort: this.ports.clock,
        sendLogPort: this.ports.sendLog,
        token: this.opts.token,
        bearer: this.opts.bearer,
        engine: poolEngine({ workers: this.opts.workers, liveDelays: true }),
        log: this.opts.log,
      });
      await this.share.prepare();
      this.state = "ready";
      this.conn?.send({ type: "ready" });
    } catch (err) {
      const reason = errorMessage(err).slice(0, 300);
      this.opts.log.line(`cannot run this scenario: ${reason}`);
      this.conn?.send({ type: "fail", reason });
      this.end(EXIT_ERROR);
    }
  }

  private async start(m: Message): Promise<void> {
    const share = this.share;
    if (share === null || !startOk(m, share.viewersAsked, share.cohortsAsked)) {
      this.conn?.send({ type: "fail", reason: "the start message is malformed" });
      this.end(EXIT_ERROR);
      return;
    }
    this.state = "running";
    const start = m as unknown as StartMessage;
    this.opts.log.line(`running ${start.viewers.length} viewers`);
    let outcome: ShareOutcome;
    try {
      outcome = await share.run(start, this.stop.signal, (tick) => this.conn?.send({ type: "tick", tick }));
    } catch (err) {
      process.stderr.write(`whipbench agent: the share failed: ${errorMessage(err)}\n`);
      this.end(EXIT_ERROR);
      return;
    }
    const lost = this.coordinatorLost || this.conn === null || this.conn.closed;
    if (!lost) {
      this.state = "sent";
      sendResults(this.conn as Conn, outcome);
    }
    if (lost || this.interrupted) {
      const code = await writeLocal(this.opts.out, outcome.input, this.opts.log);
      this.end(code);
    }
  }
}
