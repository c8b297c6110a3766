// The loopback trap: werift gathers no candidate on a loopback interface, so a peer
// without loopbackOnly or includeLoopback has no candidate pair that reaches a server on
// 127.0.0.1 and times out with nothing saying why. When a WHIP/WHEP host is a loopback address
// and neither is set, the peers include a 127.0.0.1 candidate by themselves; the run says so on
// stderr and in the report's method lines.
import type { IceOptions } from "../../net/rtc.ts";
import type { Logger } from "../observe/log.ts";

/** Whether the URL's host is a loopback address (127.0.0.0/8, ::1) or `localhost`. */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (url === undefined || url === "") return false;
  let name: string;
  try {
    name = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return name === "localhost" || name === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

export interface IceChoice {
  ice: IceOptions;
  /** loopback candidates were added because a server host is on loopback */
  autoLoopback: boolean;
}

export function iceFor(
  urls: (string | undefined)[],
  set: { loopbackOnly?: boolean | undefined; includeLoopback?: boolean | undefined },
  log: Logger,
): IceChoice {
  const loopbackOnly = set.loopbackOnly ?? false;
  const includeLoopback = set.includeLoopback ?? false;
  const autoLoopback = !loopbackOnly && !includeLoopback && urls.some(isLoopbackUrl);
  if (autoLoopback) {
    log.line(
      "the server is on a loopback address: loopback ICE candidates included (set loopbackOnly or includeLoopback to choose)",
    );
  }
  return { ice: { loopbackOnly, includeLoopback: includeLoopback || autoLoopback }, autoLoopback };
}
