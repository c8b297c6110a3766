// What Janus 1.1.2 did with each subscriber's NACKs, read from its log at level 6 (LOG_HUGE) and up
// (src/ice.c, janus_ice_cb_nice_recv). For every NACK message it logs "Just got some NACKS (n)", and
// then, for each sequence number it names, one line: "Scheduling S for retransmission", "Can't
// retransmit packet S, we don't have it" (not held, or no longer), or "Packet S was retransmitted
// just … ago, skipping" (resent < 200 ms before). Until Janus has kept a first packet for that
// handle — which it does only once a receiver report's round-trip time, in whole milliseconds, has
// differed from 0 (nack-queue-ms, docs/definitions.md#nacks) — it has no table to look in and logs
// no line per number: those messages are counted as `beforeBuffer`. The round trips it computes come
// from src/rtcp.c's "rtt=N" line, which names no handle: it is the one whose "Got an RTCP packet"
// came last (one ICE loop thread per handle, so a line of another's can come between, rarely).

/** One subscriber handle's NACKs as Janus handled them. */
export interface HandleNacks {
  handle: string;
  /** NACK messages received */
  messages: number;
  /** of `messages`: before Janus held any packet for the handle (no line per number followed) */
  beforeBuffer: number;
  /** numbers Janus resent at least once */
  resent: Set<number>;
  /** retransmissions Janus scheduled, repeats included */
  retransmissions: number;
  /** numbers asked for while held, never resent: "we don't have it" (expired or never kept) */
  notHeld: Set<number>;
  /** the first round-trip time Janus computed from the handle's receiver reports, ms; −1: none */
  firstRttMs: number;
  /** of `messages`: before the first report whose round-trip time read more than 0 ms; −1: none did */
  beforeRtt: number;
  /** reports whose round-trip time read 0 ms (Janus keeps nothing on those) */
  rttZero: number;
}

const LINE = /^\[[^\]]*\] \[(\d+)\]\s+(?:Just got some NACKS \((\d+)\) we should handle...|>> >> (.*))$/;
const SEQ = /^(?:Scheduling (\d+) for|Can't retransmit packet (\d+),|Packet (\d+) was retransmitted)/;
const RTCP_IN = /^\[[^\]]*\] \[(\d+)\]\s+Got an RTCP packet$/;
const RTT = /^\[[^\]]*\] rtt=(\d+)$/;

type Reading = HandleNacks & { open: boolean };
const reading = (handle: string): Reading => ({
  handle,
  messages: 0,
  beforeBuffer: 0,
  resent: new Set(),
  retransmissions: 0,
  notHeld: new Set(),
  firstRttMs: -1,
  beforeRtt: -1,
  rttZero: 0,
  open: false,
});

/** A round-trip time Janus computed from `h`'s report. */
function onRtt(h: Reading, ms: number): void {
  if (h.firstRttMs < 0) h.firstRttMs = ms;
  if (ms === 0) h.rttZero++;
  else if (h.beforeRtt < 0) h.beforeRtt = h.messages;
}

/** Every handle that received a NACK, in the order of its first RTCP Janus logged (or first NACK). */
export function nacksInLog(log: string): HandleNacks[] {
  const byHandle = new Map<string, Reading>();
  const of = (handle: string): Reading => {
    const h = byHandle.get(handle) ?? reading(handle);
    byHandle.set(handle, h);
    return h;
  };
  let reporting: Reading | null = null; // the handle whose RTCP Janus is parsing
  for (const line of log.split("\n")) {
    const rtt = RTT.exec(line);
    if (rtt !== null) {
      if (reporting !== null) onRtt(reporting, Number(rtt[1]));
      continue;
    }
    const r = RTCP_IN.exec(line);
    if (r !== null) reporting = of(r[1] ?? "");
    const m = LINE.exec(line);
    if (m === null) continue;
    const [, handle = "", count, rest] = m;
    let h = byHandle.get(handle);
    if (count !== undefined) {
      h = of(handle);
      if (h.open) h.beforeBuffer++; // the previous message named no number Janus could look up
      h.messages++;
      h.open = true;
      continue;
    }
    const s = SEQ.exec(rest ?? "");
    if (h === undefined || s === null) continue;
    h.open = false;
    if (s[1] !== undefined) {
      h.resent.add(Number(s[1]));
      h.retransmissions++;
      h.notHeld.delete(Number(s[1]));
    } else if (s[2] !== undefined && !h.resent.has(Number(s[2]))) h.notHeld.add(Number(s[2]));
  }
  return [...byHandle.values()]
    .filter((h) => h.messages > 0)
    .map(({ open, ...h }) => ({
      ...h,
      beforeBuffer: h.beforeBuffer + (open ? 1 : 0),
    }));
}

type Medium = { "nack-queue-ms"?: number; stats?: { out?: { packets?: number } } };
const medium = (h: Record<string, unknown>): Medium | undefined =>
  Object.values((h.webrtc as { media?: Record<string, Medium> } | undefined)?.media ?? {})[0];

/** Each handle's nack-queue-ms from its `handle_info` (0: Janus keeps nothing for retransmission). */
export function nackQueueMs(handles: Record<string, unknown>[]): number[] {
  return handles.map((h) => medium(h)?.["nack-queue-ms"] ?? 0);
}

/** The handles in the order of `messages` (each receiver's NACK count, as Janus counts them too); a
 * count no handle has, or one two handles share past the first, gives undefined */
export function byMessages(handles: HandleNacks[], messages: number[]): (HandleNacks | undefined)[] {
  const left = [...handles];
  return messages.map((n) => {
    const i = left.findIndex((h) => h.messages === n);
    return i < 0 ? undefined : left.splice(i, 1)[0];
  });
}

/** When a Streaming handle appeared and when Janus began keeping its packets, s from the watch's start. */
export interface KeepingTimes {
  seenS: number;
  /** when Janus had sent the viewer media (its stats.out.packets > 0), −1: not while watched */
  mediaS: number;
  /** −1: not while watched */
  keepingS: number;
  /** its nack-queue-ms at the last poll that listed it */
  queueMs: number;
}

/**
 * Polls `handles()` (every Streaming handle's `handle_info`) every `everyMs` until `done` settles (the
 * viewers' process closed: whenever its viewers started, a busy machine's slow start included),
 * recording per handle id when it appeared, when Janus had sent it media and when its nack-queue-ms first
 * read more than 0.
 */
export async function watchKeeping(
  handles: () => Record<string, unknown>[],
  done: Promise<unknown>,
  everyMs = 500,
): Promise<KeepingTimes[]> {
  const start = Date.now();
  const out = new Map<string, KeepingTimes>();
  let over = false;
  void done.finally(() => {
    over = true;
  });
  while (!over) {
    const list = handles();
    const nowS = (Date.now() - start) / 1000;
    list.forEach((h, i) => {
      const id = String(h.handle_id);
      const nq = nackQueueMs(list)[i] ?? 0;
      const t = out.get(id) ?? { seenS: nowS, mediaS: -1, keepingS: -1, queueMs: 0 };
      if ((medium(h)?.stats?.out?.packets ?? 0) > 0 && t.mediaS < 0) t.mediaS = nowS;
      if (nq > 0 && t.keepingS < 0) t.keepingS = nowS;
      t.queueMs = nq;
      out.set(id, t);
    });
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return [...out.values()];
}
