// A strict parser of the Prometheus text exposition format (version 0.0.4): `# HELP` and `# TYPE`
// lines, other comments, and samples `name{label="value",…} value [timestamp]`, with label values
// escaped as \\, \" and \n. Only what a server-resources watch needs: each sample's name, labels
// and value, and each family's declared type. Anything else is an error naming the line.
import { PromParseError } from "../errors.ts";

export type PromType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromScrape {
  samples: PromSample[];
  /** the `# TYPE` of each family, by family name */
  types: Map<string, PromType>;
}

/** A series to keep: a metric name and optionally labels every matching sample must carry. */
export interface PromSelector {
  name: string;
  labels: Record<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set<string>(["counter", "gauge", "histogram", "summary", "untyped"]);

/** Parses one scrape; throws PromParseError("line N: …") at the first line that does not parse. */
export function parsePromText(text: string): PromScrape {
  const samples: PromSample[] = [];
  const types = new Map<string, PromType>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").replace(/\r$/, "").trim();
    if (line === "") continue;
    try {
      if (line.startsWith("#")) comment(line, types);
      else samples.push(sample(line));
    } catch (err) {
      if (!(err instanceof PromParseError)) throw err;
      throw new PromParseError(`line ${i + 1}: ${err.message}`, { cause: err });
    }
  }
  return { samples, types };
}

function comment(line: string, types: Map<string, PromType>): void {
  const m = /^#\s*TYPE\s+(\S+)\s+(\S+)\s*$/.exec(line);
  if (!m) return; // HELP and free comments carry nothing the watch needs
  const [, name = "", type = ""] = m;
  if (!NAME.test(name) || NAME.exec(name)?.[0] !== name)
    throw new PromParseError("a TYPE line with a bad metric name");
  if (!TYPES.has(type)) throw new PromParseError(`unknown metric type "${type}"`);
  if (types.has(name)) throw new PromParseError(`a second TYPE line for ${name}`);
  types.set(name, type as PromType);
}

function sample(line: string): PromSample {
  const name = NAME.exec(line)?.[0];
  if (!name) throw new PromParseError("a sample must start with a metric name");
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    const parsed = labelSet(rest);
    labels = parsed.labels;
    rest = rest.slice(parsed.length);
  }
  const fields = rest.trim().split(/[ \t]+/);
  if (!/^[ \t]/.test(rest) || fields.length < 1 || fields.length > 2) {
    throw new PromParseError("want a value (and an optional timestamp) after the name and labels");
  }
  const value = floatValue(fields[0] ?? "");
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1]))
    throw new PromParseError("the timestamp is not an integer");
  return { name, labels, value };
}

/** `{a="x",b="y",}` at the start of `text`: the labels and the characters they took. */
export function labelSet(text: string): { labels: Record<string, string>; length: number } {
  const labels: Record<string, string> = {};
  let i = 1;
  const skip = () => {
    while (text[i] === " " || text[i] === "\t") i++;
  };
  for (;;) {
    skip();
    if (text[i] === "}") return { labels, length: i + 1 };
    const lname = LABEL_NAME.exec(text.slice(i))?.[0];
    if (!lname) throw new PromParseError("a bad label name");
    i += lname.length;
    skip();
    if (text[i] !== "=") throw new PromParseError(`want = after label ${lname}`);
    i++;
    skip();
    if (text[i] !== '"') throw new PromParseError(`want a quoted value for label ${lname}`);
    i++;
    let value = "";
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new PromParseError(`the value of label ${lname} is not closed`);
      i++;
      if (c === '"') break;
      if (c !== "\\") {
        value += c;
        continue;
      }
      const e = text[i++];
      if (e === "\\" || e === '"') value += e;
      else if (e === "n") value += "\n";
      else throw new PromParseError(`a bad escape in the value of label ${lname}`);
    }
    if (Object.hasOwn(labels, lname)) throw new PromParseError(`label ${lname} given twice`);
    labels[lname] = value;
    skip();
    if (text[i] === ",") i++;
    else if (text[i] !== "}") throw new PromParseError("want , or } after a label");
  }
}

function floatValue(text: string): number {
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new PromParseError("the value is not a number");
  return Number(text);
}

/** `name` or `name{label="v",…}`; null when the text is neither. */
export function parsePromSelector(text: string): PromSelector | null {
  const t = text.trim();
  const name = NAME.exec(t)?.[0];
  if (!name) return null;
  if (t.length === name.length) return { name, labels: {} };
  if (t[name.length] !== "{") return null;
  try {
    const { labels, length } = labelSet(t.slice(name.length));
    return name.length + length === t.length ? { name, labels } : null;
  } catch {
    return null;
  }
}

/** Whether the sample is of the selector's metric and carries every label the selector names. */
export function matchesSelector(sel: PromSelector, s: PromSample): boolean {
  if (s.name !== sel.name) return false;
  for (const [k, v] of Object.entries(sel.labels)) if (s.labels[k] !== v) return false;
  return true;
}

/**
 * Whether a sample's value only grows (a counter, or a histogram's or summary's _count, _sum or
 * _bucket) or is a level (a gauge, a summary's quantile, an untyped series). A counter's family
 * may be declared with or without its _total suffix.
 */
export function sampleKind(name: string, types: ReadonlyMap<string, PromType>): "counter" | "gauge" {
  const own = types.get(name);
  if (own === "counter") return "counter";
  if (own !== undefined) return "gauge";
  if (name.endsWith("_total") && types.get(name.slice(0, -"_total".length)) === "counter") return "counter";
  for (const suffix of ["_count", "_sum", "_bucket"]) {
    const family = types.get(name.slice(0, -suffix.length));
    if (name.endsWith(suffix) && (family === "histogram" || family === "summary")) return "counter";
  }
  return "gauge";
}
