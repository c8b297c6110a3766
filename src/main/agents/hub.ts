// The coordinator's side of the wire (docs/definitions.md#many-hosts): the control port (TCP PORT)
// where agents connect and are admitted or refused, the UDP clock exchange on PORT and the send
// log on TCP PORT+1, and the wait for N agents. Peer addresses never reach a log line.
import { createServer, type Server, type Socket } from "node:net";
import type { WallAnchor } from "../../core/clock/clock.ts";
import type { ClipIdentity } from "../../core/delay/fingerprint.ts";
import { errorMessage, RunError } from "../../core/errors.ts";
import type { Logger } from "../observe/log.ts";
import { type Responder, startResponder } from "../split/clock-exchange.ts";
import { type SendLogServer, serveSendLog } from "../split/sendlog-channel.ts";
import { checkHello } from "./handshake.ts";
import {
  type Conn,
  frameConn,
  MAX_FRAME_BYTES,
  type Message,
  PROTOCOL_VERSION,
  printable,
  type Welcome,
} from "./wire.ts";

/** One admitted agent; `onMessage`/`onClose` are set by whoever drives it (the engine). */
export interface AgentLink {
  index: number;
  name: string;
  workers: number;
  conn: Conn;
  lost: string | null;
  /** its final message arrived: a close after it is no loss */
  finished: boolean;
  onMessage: (m: Message) => void;
  onClose: (why: string) => void;
}

export interface HubOptions {
  host: string;
  port: number;
  token: string | undefined;
  version: string;
  identity: ClipIdentity;
  anchor: WallAnchor;
  log: Logger;
  /** an agent silent this long is lost (ms) */
  silenceMs?: number;
}

const HELLO_TIMEOUT_MS = 10_000;
/** a hello is small: a connection that has not said one gets no more than this per frame */
const HELLO_MAX_BYTES = 16 << 10;
/** connections that have not said hello yet, at most */
const MAX_PENDING = 64;

export class AgentHub {
  private readonly opts: HubOptions;
  private server: Server | null = null;
  private responder: Responder | null = null;
  sendLog: SendLogServer | null = null;
  readonly agents: AgentLink[] = [];
  /** malformed or oversized frames, each of which closed its connection */
  malformedFrames = 0;
  refused = 0;
  private wanted = 0;
  /** agents are admitted only while the coordinator waits for them */
  private admitting = true;
  private arrived: () => void = () => {};
  private pinger: NodeJS.Timeout | undefined;
  private pending = 0;

  constructor(opts: HubOptions) {
    this.opts = opts;
  }

  async listen(): Promise<void> {
    const { host, port } = this.opts;
    this.responder = await startResponder(host, port, this.opts.anchor);
    this.sendLog = await serveSendLog(host, port + 1, this.opts.identity, this.opts.token);
    const server = createServer((sock) => this.admit(sock));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) =>
        reject(new RunError(`cannot listen for agents on TCP port ${port}`, { cause: err })),
      );
      server.listen(port, host, () => resolve());
    });
    this.pinger = setInterval(() => {
      for (const a of this.agents) a.conn.send({ type: "ping" });
    }, 1000);
    this.opts.log.line(
      `coordinator: agents on TCP port ${port}, clock exchange on UDP port ${port}, send log on TCP port ${port + 1}`,
    );
  }

  /** Resolves with true once `n` agents are admitted, false at the timeout. */
  waitFor(n: number, timeoutMs: number): Promise<boolean> {
    this.wanted = n;
    return new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), timeoutMs);
      this.arrived = () => {
        if (this.live().length >= n) {
          clearTimeout(t);
          resolve(true);
        }
      };
      this.arrived();
    }).then((all) => {
      this.admitting = false;
      return all;
    });
  }

  live(): AgentLink[] {
    return this.agents.filter((a) => a.lost === null);
  }

  private admit(sock: Socket): void {
    if (this.pending >= MAX_PENDING) {
      sock.destroy();
      return;
    }
    this.pending++;
    let link: AgentLink | null = null;
    let said = false;
    const settle = () => {
      if (!said) this.pending--;
      said = true;
    };
    let silence = Date.now();
    const timer = setTimeout(() => {
      if (link === null) sock.destroy();
    }, HELLO_TIMEOUT_MS);
    const watchdog = setInterval(() => {
      if (Date.now() - silence > (this.opts.silenceMs ?? 10_000)) sock.destroy();
    }, 1000);
    const conn = frameConn(
      sock,
      (m) => {
        silence = Date.now();
        try {
          if (link !== null) link.onMessage(m);
          else {
            clearTimeout(timer);
            settle();
            link = this.hello(conn, m);
            if (link !== null) conn.limitFrames(MAX_FRAME_BYTES);
          }
        } catch (err) {
          // nothing an agent sends may stop the coordinator: the message is rejected instead
          this.malformedFrames++;
          this.opts.log.line(
            `agent ${link?.name ?? "(before its hello)"}: a message failed (${printable(errorMessage(err))}); connection closed`,
          );
          sock.destroy();
        }
      },
      (why) => {
        this.malformedFrames++;
        this.opts.log.line(`agent ${link?.name ?? "(before its hello)"}: ${why}; connection closed`);
      },
      () => {
        clearTimeout(timer);
        clearInterval(watchdog);
        settle();
        if (link !== null && link.lost === null && !link.finished) {
          link.lost = "its connection closed";
          this.opts.log.line(`agent ${link.name} lost: its connection closed`);
          link.onClose(link.lost);
        }
      },
    );
    conn.limitFrames(HELLO_MAX_BYTES);
  }

  private hello(conn: Conn, m: Message): AgentLink | null {
    const v = checkHello(m, this.opts.version, this.opts.token);
    let reason = v.ok ? null : v.reason;
    if (v.ok && (!this.admitting || this.live().length >= this.wanted)) {
      reason = `the run already has its ${this.wanted} agents`;
    }
    if (v.ok && this.live().some((a) => a.name === v.hello.name))
      reason = `an agent named ${v.hello.name} is already connected`;
    if (reason !== null || !v.ok) {
      this.refused++;
      this.opts.log.line(`agent refused: ${reason}`);
      conn.send({ type: "refuse", reason });
      conn.close();
      return null;
    }
    const link: AgentLink = {
      index: this.agents.length,
      name: v.hello.name,
      workers: v.hello.workers,
      conn,
      lost: null,
      finished: false,
      onMessage: () => {},
      onClose: () => {},
    };
    this.agents.push(link);
    const welcome: Welcome = {
      type: "welcome",
      protocol: PROTOCOL_VERSION,
      version: this.opts.version,
      index: link.index,
      clockPort: this.opts.port,
      sendLogPort: this.opts.port + 1,
    };
    conn.send(welcome);
    this.opts.log.line(
      `agent ${link.name} connected (${link.workers} worker threads); ${this.live().length} of ${this.wanted}`,
    );
    this.arrived();
    return link;
  }

  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const a of this.agents) a.conn.close();
    await this.sendLog?.close();
    await this.responder?.close();
    const s = this.server;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
