// Report JSON in the layout of Go's encoding/json MarshalIndent (docs/definitions.md#json-layout):
// keys in insertion order (the builders create objects in schema order), map keys sorted, undefined
// keys absent, <>& and U+2028/U+2029 escaped, -0 written as 0, bigint written as an integer,
// 2-space indent and a trailing newline. A NaN or an infinity is a bug in the builder and throws.

import { compareBytes } from "./reasons.ts";
import type { Report } from "./types.ts";

/** Keys whose object value is a map: serialised with its keys sorted by byte order. */
const MAP_KEYS = new Set(["errors", "viewersByFrameEnd", "viewersByFinder", "viewersFrozenByCohort"]);

const ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export function jsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c] ?? c);
}

function jsonNumber(n: number, path: string): string {
  if (!Number.isFinite(n)) {
    // internal: invariant, the report's figures are finite (unavailable figures are a reason, not a number)
    throw new Error(`internal error: report value ${path} is ${String(n)}, not a finite number`);
  }
  if (n === 0) return "0"; // also -0
  return JSON.stringify(n);
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function write(v: unknown, indent: string | null, depth: string, path: string, sortKeys: boolean): string {
  switch (typeof v) {
    case "string":
      return jsonString(v);
    case "number":
      return jsonNumber(v, path);
    case "bigint":
      return v.toString();
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      const inner = indent === null ? "" : depth + indent;
      const nl = indent === null ? "" : "\n";
      const sep = indent === null ? ":" : ": ";
      if (Array.isArray(v)) {
        if (v.length === 0) return "[]";
        const items = v.map((item: unknown, i) => {
          // internal: invariant, report builders leave no holes in lists
          if (item === undefined) throw new Error(`internal error: report value ${path}[${i}] is undefined`);
          return inner + write(item, indent, inner, `${path}[${i}]`, false);
        });
        return `[${nl}${items.join(`,${nl}`)}${nl}${indent === null ? "" : depth}]`;
      }
      // internal: invariant, the report holds plain objects only
      if (!isPlainObject(v)) throw new Error(`internal error: report value ${path} is not a plain object`);
      let keys = Object.keys(v).filter((k) => v[k] !== undefined);
      if (sortKeys) keys = keys.sort(compareBytes);
      if (keys.length === 0) return "{}";
      const members = keys.map(
        (k) => inner + jsonString(k) + sep + write(v[k], indent, inner, `${path}.${k}`, MAP_KEYS.has(k)),
      );
      return `{${nl}${members.join(`,${nl}`)}${nl}${indent === null ? "" : depth}}`;
    }
    default:
      // internal: invariant, the report holds JSON values only
      throw new Error(`internal error: report value ${path} has type ${typeof v}`);
  }
}

/** The report file's text: pretty-printed with 2 spaces, trailing newline. */
export function reportToJson(r: Report): string {
  return `${write(r, "  ", "", "$", false)}\n`;
}

/** Compact JSON of one value in the report's conventions; "" for an absent (undefined) value. */
export function jsonValue(v: unknown): string {
  if (v === undefined) return "";
  return write(v, null, "", "$", false);
}
