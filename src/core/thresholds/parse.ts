// Parsing a scenario's `thresholds`: a map from a figure name to one condition, a list
// of them, or an object {condition, abortOnFail, delayAbortEval}. Every mistake is an error that
// names the key: `thresholds["oneWayDelay.p95"]: …`.

import { ThresholdError } from "../errors.ts";
import { parseGoDuration } from "../go-compat/time.ts";
import type { Condition, FigureUnit, Operator, Threshold } from "../scenario/threshold-types.ts";
import { figureOfKey, isCohortFigure, looksLikeCohortKey, splitCohortKey } from "./cohort-figures.ts";
import { FIGURES } from "./figures.ts";

const CONDITION_RE = /^(<=|>=|==|!=|<|>)\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(ms|s|%)?$/;

const OBJECT_KEYS = new Set(["condition", "abortOnFail", "delayAbortEval"]);

function unitWords(unit: FigureUnit): string {
  if (unit === "ms" || unit === "s") return "a time (ms or s, e.g. 40ms)";
  if (unit === "%") return "a percentage (e.g. 0.5%)";
  return "a plain count with no unit (e.g. 0)";
}

/**
 * One condition such as "< 40ms", "<= 0.5%" or "== 0", with its value converted to the figure's
 * unit. Throws ThresholdError with the reason (parseThresholds names the key).
 */
export function parseCondition(text: string, unit: FigureUnit): Condition {
  const trimmed = text.trim();
  const m = CONDITION_RE.exec(trimmed);
  if (m === null) {
    throw new ThresholdError(
      `condition ${JSON.stringify(text)} is not of the form "<op> <number><unit>" (op one of < <= > >= == !=)`,
    );
  }
  const op = m[1] as Operator;
  const n = Number(m[2]);
  const given = m[3] ?? "";
  if (!Number.isFinite(n))
    throw new ThresholdError(`condition ${JSON.stringify(text)}: the number is not finite`);
  let v: number;
  if (unit === "ms" || unit === "s") {
    if (given !== "ms" && given !== "s") {
      throw new ThresholdError(`condition ${JSON.stringify(text)} needs ${unitWords(unit)}`);
    }
    const ms = given === "s" ? n * 1000 : n;
    v = unit === "s" ? ms / 1000 : ms;
  } else if (given !== unit) {
    throw new ThresholdError(`condition ${JSON.stringify(text)} needs ${unitWords(unit)}`);
  } else {
    v = n;
  }
  return { op, value: v, text: trimmed };
}

function conditionsOf(figure: string, raw: unknown, unit: FigureUnit): Threshold[] {
  if (typeof raw === "string") {
    return [{ figure, condition: parseCondition(raw, unit), abortOnFail: false, delayAbortEvalS: 0 }];
  }
  if (Array.isArray(raw)) {
    if (raw.length === 0) throw new ThresholdError("an empty list: give at least one condition");
    return raw.flatMap((item) => {
      if (Array.isArray(item)) throw new ThresholdError("a list inside a list: give strings or objects");
      return conditionsOf(figure, item, unit);
    });
  }
  if (raw === null || typeof raw !== "object") {
    throw new ThresholdError(
      `want a condition string, a list or an object, not ${raw === null ? "null" : typeof raw}`,
    );
  }
  const obj = raw as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!OBJECT_KEYS.has(k))
      throw new ThresholdError(
        `unknown key ${JSON.stringify(k)} (want condition, abortOnFail, delayAbortEval)`,
      );
  }
  if (typeof obj.condition !== "string") throw new ThresholdError("the object needs a condition string");
  if (obj.abortOnFail !== undefined && typeof obj.abortOnFail !== "boolean") {
    throw new ThresholdError("abortOnFail must be true or false");
  }
  const abortOnFail = obj.abortOnFail === true;
  let delayAbortEvalS = 0;
  if (obj.delayAbortEval !== undefined) {
    const ns = typeof obj.delayAbortEval === "string" ? parseGoDuration(obj.delayAbortEval) : null;
    if (ns === null || ns < 0) throw new ThresholdError(`delayAbortEval must be a duration such as "10s"`);
    if (!abortOnFail) throw new ThresholdError("delayAbortEval needs abortOnFail: true");
    delayAbortEvalS = ns / 1e9;
  }
  const f = FIGURES.get(figure);
  if (abortOnFail && splitCohortKey(figure) !== null) {
    throw new ThresholdError("abortOnFail: a cohort's figures are known only at the end of a run");
  }
  if (abortOnFail && f?.live === undefined) {
    throw new ThresholdError(
      `abortOnFail needs a figure seen live (one-way delay, packet transit, failed viewers); ${figure} is known only at the end`,
    );
  }
  return [{ figure, condition: parseCondition(obj.condition, unit), abortOnFail, delayAbortEvalS }];
}

/** Suggests the figure names closest to an unknown one (same first word). */
function nearNames(figure: string): string {
  const head = figure.split(".")[0] ?? "";
  const near = [...FIGURES.keys()].filter((k) => k.split(".")[0] === head).slice(0, 6);
  return near.length > 0 ? `; figures of ${head}: ${near.join(", ")}` : "";
}

/** Why a key names no figure: a malformed cohort key, a figure no cohort carries, or an unknown name. */
function unknownKey(key: string): string {
  if (!looksLikeCohortKey(key)) return `unknown figure${nearNames(key)}`;
  const split = splitCohortKey(key);
  if (split === null)
    return `want "cohort:<name> <figure>" (a space between, e.g. "cohort:far oneWayDelay.p95")`;
  if (!FIGURES.has(split.figure)) return `unknown figure ${split.figure}${nearNames(split.figure)}`;
  if (!isCohortFigure(split.figure))
    return `a cohort carries no ${split.figure} (cohort figures: oneWayDelay.*, join.<stat>, loss, nacks, stalls, and what its viewers saw: freezes, freezeShare.<stat>, frozenSeconds, …)`;
  return "unknown figure";
}

/** The `thresholds` value of a scenario (already JSON-decoded). Throws ThresholdError naming the key. */
export function parseThresholds(value: unknown): Threshold[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ThresholdError("thresholds: want an object mapping a figure to its conditions");
  }
  const out: Threshold[] = [];
  for (const [figure, raw] of Object.entries(value as Record<string, unknown>)) {
    const name = `thresholds[${JSON.stringify(figure)}]`;
    const f = figureOfKey(figure);
    if (f === undefined) throw new ThresholdError(`${name}: ${unknownKey(figure)}`);
    try {
      out.push(...conditionsOf(figure, raw, f.unit));
    } catch (err) {
      if (!(err instanceof ThresholdError)) throw err;
      throw new ThresholdError(`${name}: ${err.message}`, { cause: err });
    }
  }
  return out;
}
