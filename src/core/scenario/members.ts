// One scenario member's raw JSON decoded by its Go field type, with the words of a type error
// (the key, the value as shown, what is wanted); Go's %q for keys and values in messages.

export type GoType = "string" | "int" | "float64" | "int64" | "bool";

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
const INTEGER_RE = /^-?(0|[1-9][0-9]*)$/;

/** Go's %q for the strings that may appear in messages (keys, codec). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c === 0x07) out += "\\a";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0b) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if ((c >= 0x80 && c < 0xa0) || (c >= 0xd800 && c <= 0xdfff))
      out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

export function jsonKind(raw: string): string {
  const c = raw[0];
  if (c === '"') return "string";
  if (c === "{") return "object";
  if (c === "[") return "array";
  if (c === "t" || c === "f") return "bool";
  if (c === "n") return "null";
  return "number";
}

/** What each key type wants, in the words of a type error. */
const WANTED: Record<GoType, string> = {
  string: "a string",
  int: "an integer",
  int64: "an integer from -2^63 to 2^63-1",
  float64: "a finite number",
  bool: "true or false",
};

/**
 * A value as a type error shows it: numbers and booleans as written (cut at 40 characters),
 * strings, arrays and objects by kind only, since a string may hold a URL or a token.
 */
function shown(raw: string): string {
  const kind = jsonKind(raw);
  if (kind === "string") return "a string";
  if (kind === "object") return "an object";
  if (kind === "array") return "an array";
  if (kind === "null") return "null";
  return raw.length > 40 ? `${raw.slice(0, 39)}…` : raw;
}

/** A member's type error: the key, the value as shown and what is wanted. */
export interface MemberTypeError {
  typeError: string;
}

function typeError(raw: string, key: string, goType: GoType): MemberTypeError {
  return { typeError: `${key}: got ${shown(raw)}, want ${WANTED[goType]}` };
}

/** Decode one member's raw JSON into the typed value, or a type error naming key, value and type. */
export function decodeMember(
  key: string,
  raw: string,
  goType: GoType,
): string | number | bigint | boolean | MemberTypeError {
  const kind = jsonKind(raw);
  switch (goType) {
    case "string":
      return kind === "string" ? (JSON.parse(raw) as string) : typeError(raw, key, goType);
    case "bool":
      return kind === "bool" ? raw === "true" : typeError(raw, key, goType);
    case "float64": {
      if (kind !== "number") return typeError(raw, key, goType);
      const v = Number(raw);
      return Number.isFinite(v) ? v : typeError(raw, key, goType);
    }
    case "int":
    case "int64": {
      if (kind !== "number" || !INTEGER_RE.test(raw)) return typeError(raw, key, goType);
      const b = BigInt(raw);
      if (b < INT64_MIN || b > INT64_MAX) return typeError(raw, key, goType);
      return goType === "int64" ? b : Number(b);
    }
  }
}
