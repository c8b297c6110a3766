// The connect step of the wire: an agent's hello is accepted only with the same protocol and
// whipbench version and, when the coordinator has a token, that token. A refusal names both
// versions on skew; it never echoes a token.
import { createHash, timingSafeEqual } from "node:crypto";
import { type Hello, type Message, PROTOCOL_VERSION, validName } from "./wire.ts";

export type HelloVerdict = { ok: true; hello: Hello } | { ok: false; reason: string };

function sameToken(a: string, b: string): boolean {
  const h = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

export function checkHello(m: Message, version: string, token: string | undefined): HelloVerdict {
  if (m.type !== "hello") return { ok: false, reason: "the first message must be a hello" };
  if (m.protocol !== PROTOCOL_VERSION || m.version !== version) {
    const theirs = typeof m.version === "string" ? m.version.slice(0, 80) : "unknown";
    const proto = typeof m.protocol === "number" ? m.protocol : "unknown";
    return {
      ok: false,
      reason: `version skew: the coordinator is whipbench ${version} (wire ${PROTOCOL_VERSION}), the agent whipbench ${theirs} (wire ${proto})`,
    };
  }
  if (typeof m.name !== "string" || !validName(m.name)) {
    return { ok: false, reason: "the agent name must be 1–63 letters, digits, '.', '_' or '-'" };
  }
  if (typeof m.workers !== "number" || !Number.isSafeInteger(m.workers) || m.workers < 1 || m.workers > 256) {
    return { ok: false, reason: "the agent's workers must be an integer from 1 to 256" };
  }
  if (token !== undefined) {
    if (typeof m.token !== "string" || m.token === "") return { ok: false, reason: "a token is required" };
    if (!sameToken(m.token, token)) return { ok: false, reason: "the token does not match" };
  }
  return {
    ok: true,
    hello: { type: "hello", protocol: PROTOCOL_VERSION, version, name: m.name, workers: m.workers },
  };
}
