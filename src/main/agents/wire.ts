// The agent ↔ coordinator wire (docs/definitions.md#many-hosts): TCP, each message one frame of a
// 4-byte big-endian length and that many bytes of UTF-8 JSON, never more than MAX_FRAME_BYTES. A
// frame that is oversized, not JSON or not an object with a string `type` is malformed: the
// reader says so once and the connection is closed by its owner; nothing is thrown at a caller.
import type { Socket } from "node:net";
import { AgentError } from "../../core/errors.ts";

/**
 * The wire's own version: an agent and a coordinator speak only the same one (handshake.ts refuses
 * any other, naming both). Bump it when a message gains a required field or a field changes
 * meaning. 2: `start`'s `viewers[].cohort`, the coordinator's cohort assignment over the whole
 * run (absent: unimpaired); a wire-1 agent ignored it and assigned the scenario's cohorts over its
 * own share, so it would have run a wire-2 start's viewers in other cohorts than the report's.
 */
export const PROTOCOL_VERSION = 2;
/** The largest frame either side accepts (records travel in chunks well below it). */
export const MAX_FRAME_BYTES = 4 << 20;

export type Message = { type: string } & Record<string, unknown>;

/** JSON with bigints as decimal strings (a scenario's seed). */
export function encodeFrame(msg: object): Buffer {
  const body = Buffer.from(
    JSON.stringify(msg, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
    "utf8",
  );
  if (body.length > MAX_FRAME_BYTES)
    throw new AgentError(`a ${body.length}-byte frame is over the wire's limit`);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Feeds bytes in, hands whole messages out; after one malformed frame it stops for good. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private broken: string | null = null;
  /** the largest frame accepted now (a coordinator takes little before an agent's hello) */
  maxBytes = MAX_FRAME_BYTES;
  private readonly onMessage: (m: Message) => void;
  private readonly onMalformed: (why: string) => void;

  constructor(onMessage: (m: Message) => void, onMalformed: (why: string) => void) {
    this.onMessage = onMessage;
    this.onMalformed = onMalformed;
  }

  push(chunk: Buffer): void {
    if (this.broken !== null) return;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    while (this.buf.length >= 4 && this.broken === null) {
      const len = this.buf.readUInt32BE(0);
      if (len > this.maxBytes) {
        this.fail(`a frame of ${len} bytes is over the ${this.maxBytes}-byte limit`);
        return;
      }
      if (this.buf.length < 4 + len) return;
      const body = this.buf.subarray(4, 4 + len);
      this.buf = this.buf.subarray(4 + len);
      let m: unknown;
      try {
        m = JSON.parse(body.toString("utf8"));
      } catch {
        this.fail("a frame is not JSON");
        return;
      }
      if (
        typeof m !== "object" ||
        m === null ||
        Array.isArray(m) ||
        typeof (m as Message).type !== "string"
      ) {
        this.fail("a frame is not a message object");
        return;
      }
      this.onMessage(m as Message);
    }
  }

  private fail(why: string): void {
    this.broken = why;
    this.buf = Buffer.alloc(0);
    this.onMalformed(why);
  }
}

/** A socket speaking frames: send, and messages/malformed/close callbacks. */
export interface Conn {
  send(msg: object): void;
  /** the largest frame this side accepts from now on */
  limitFrames(maxBytes: number): void;
  close(): void;
  readonly closed: boolean;
}

export function frameConn(
  sock: Socket,
  onMessage: (m: Message) => void,
  onMalformed: (why: string) => void,
  onClose: () => void,
): Conn {
  let closed = false;
  const reader = new FrameReader(onMessage, (why) => {
    onMalformed(why);
    sock.destroy();
  });
  sock.setNoDelay(true);
  sock.on("data", (d: Buffer) => reader.push(d));
  sock.on("error", () => {});
  sock.on("close", () => {
    closed = true;
    onClose();
  });
  return {
    send(msg) {
      if (!closed && !sock.destroyed) sock.write(encodeFrame(msg));
    },
    limitFrames(maxBytes) {
      reader.maxBytes = maxBytes;
    },
    close() {
      sock.end();
      setTimeout(() => sock.destroy(), 1000).unref();
    },
    get closed() {
      return closed;
    },
  };
}

export interface Hello {
  type: "hello";
  protocol: number;
  version: string;
  name: string;
  token?: string;
  workers: number;
}

/** What the coordinator tells an accepted agent: its index and where the clock and send log are. */
export interface Welcome {
  type: "welcome";
  protocol: number;
  version: string;
  index: number;
  clockPort: number;
  sendLogPort: number;
}

/** A peer's text as a log line or report may carry it: one line, printable, at most `max` characters. */
export function printable(v: unknown, max = 300): string {
  const text = typeof v === "string" ? v : "";
  return text.replace(/[^\x20-\x7e\u00a0-\uffff]/g, " ").slice(0, max);
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** An agent name as reports and logs may carry it. */
export function validName(name: string): boolean {
  return NAME.test(name);
}
