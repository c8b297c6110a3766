// Flag value parsers for commander: each throws a UsageError naming the flag, so a bad value
// exits 2 with one line and no stack trace.

import { errorMessage, UsageError } from "../../core/errors.ts";
import { parseGoDuration } from "../../core/go-compat/fmt.ts";

export function durationFlag(flag: string): (text: string) => number {
  return (text) => {
    const ns = parseGoDuration(text);
    if (ns === null) throw new UsageError(`${flag}: want a duration such as 300ms, 10s or 1m30s`);
    return ns;
  };
}

export function intFlag(flag: string, min: number, max: number): (text: string) => number {
  return (text) => {
    if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`${flag}: want an integer`);
    const v = Number(text);
    if (!Number.isSafeInteger(v) || v < min || v > max) {
      throw new UsageError(`${flag}: want an integer from ${min} to ${max}`);
    }
    return v;
  };
}

/** A percentage "5%" (or a bare number, read as percent) within 0..100 %, as a chance 0..1. */
export function percentFlag(flag: string): (text: string) => number {
  return (text) => {
    const m = /^([0-9]+(?:\.[0-9]+)?)%?$/.exec(text.trim());
    const p = m === null ? Number.NaN : Number(m[1]);
    if (!(p >= 0 && p <= 100)) throw new UsageError(`${flag}: want a percentage from 0% to 100%, such as 5%`);
    return p / 100;
  };
}

/** int64 seed: exact, so BigInt. */
export function seedFlag(flag: string): (text: string) => bigint {
  return (text) => {
    if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`${flag}: want an integer`);
    const v = BigInt(text.trim());
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new UsageError(`${flag}: want an integer`);
    return v;
  };
}

/** HOST:PORT with an optional host (":7444" listens on every interface). */
export function parseHostPort(text: string, requireHost: boolean): { host: string; port: number } {
  const i = text.lastIndexOf(":");
  if (i < 0) throw new UsageError("want HOST:PORT");
  let hostPart = text.slice(0, i);
  if (hostPart.startsWith("[") && hostPart.endsWith("]")) hostPart = hostPart.slice(1, -1);
  if (requireHost && hostPart === "") throw new UsageError("want HOST:PORT, the host is missing");
  const portText = text.slice(i + 1);
  const port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) throw new UsageError("want a port from 1 to 65535");
  return { host: hostPart, port };
}

export function listenFlag(flag: string): (text: string) => { host: string; port: number } {
  return (text) => {
    try {
      // a bare port means loopback: nothing is exposed unless the user names an interface
      const full = /^\d+$/.test(text) ? `127.0.0.1:${text}` : text;
      const hp = parseHostPort(full, false);
      return { host: hp.host === "" ? "127.0.0.1" : hp.host, port: hp.port };
    } catch (err) {
      throw new UsageError(`${flag}: ${errorMessage(err)}`, undefined, { cause: err });
    }
  };
}

/** A HOST:PORT flag; `requireHost` for an address to reach (a peer), not one to listen on. */
export function hostPortFlag(
  flag: string,
  requireHost: boolean,
): (text: string) => { host: string; port: number } {
  return (text) => {
    try {
      return parseHostPort(text, requireHost);
    } catch (err) {
      throw new UsageError(`${flag}: ${errorMessage(err)}`, undefined, { cause: err });
    }
  };
}
