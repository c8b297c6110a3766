// A strict JSON scanner for scenario files: it finds the end of the first JSON value (so
// trailing data can be told apart from bad JSON, as Go's json.Decoder does), reports syntax
// errors without echoing the input, and returns the raw source of every top-level member so
// that integers beyond 2^53 (`rampOffsetSeed`) are read exactly.
import { JsonSyntaxError } from "../errors.ts";

export interface RawMember {
  /** decoded key */
  key: string;
  /** the value's source text (a complete JSON value) */
  raw: string;
}

export interface ScannedValue {
  /** index just past the first value */
  end: number;
  /** when the value is an object: its members in document order; null otherwise */
  members: RawMember[] | null;
}

const MAX_DEPTH = 10_000;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

class Scanner {
  private readonly t: string;
  pos = 0;

  constructor(text: string) {
    this.t = text;
  }

  fail(what: string): never {
    if (this.pos >= this.t.length) throw new JsonSyntaxError("unexpected EOF");
    throw new JsonSyntaxError(`invalid character at offset ${this.pos} ${what}`);
  }

  peek(): number {
    return this.pos < this.t.length ? this.t.charCodeAt(this.pos) : -1;
  }

  skipWs(): void {
    while (this.pos < this.t.length && isWs(this.t.charCodeAt(this.pos))) this.pos++;
  }

  string(): void {
    // at '"'
    this.pos++;
    for (;;) {
      const c = this.peek();
      if (c === -1) this.fail("in string literal");
      if (c === 0x22) {
        this.pos++;
        return;
      }
      if (c < 0x20) this.fail("in string literal");
      if (c === 0x5c) {
        this.pos++;
        const e = this.peek();
        if (e === 0x75) {
          this.pos++;
          for (let i = 0; i < 4; i++) {
            if (!isHex(this.peek())) this.fail("in \\u hexadecimal character escape");
            this.pos++;
          }
          continue;
        }
        // " \ / b f n r t
        if (![0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(e)) this.fail("in string escape code");
        this.pos++;
        continue;
      }
      this.pos++;
    }
  }

  number(): void {
    if (this.peek() === 0x2d) this.pos++;
    const first = this.peek();
    if (first === 0x30) {
      this.pos++;
    } else if (isDigit(first)) {
      while (isDigit(this.peek())) this.pos++;
    } else {
      this.fail("in numeric literal");
    }
    if (this.peek() === 0x2e) {
      this.pos++;
      if (!isDigit(this.peek())) this.fail("after decimal point in numeric literal");
      while (isDigit(this.peek())) this.pos++;
    }
    const e = this.peek();
    if (e === 0x65 || e === 0x45) {
      this.pos++;
      const s = this.peek();
      if (s === 0x2b || s === 0x2d) this.pos++;
      if (!isDigit(this.peek())) this.fail("in exponent of numeric literal");
      while (isDigit(this.peek())) this.pos++;
    }
  }

  literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.peek() !== word.charCodeAt(i)) this.fail(`in literal ${word}`);
      this.pos++;
    }
  }

  /** A scalar, or the opening of a container (returns its closing char code). */
  valueStart(): number {
    const c = this.peek();
    switch (c) {
      case 0x7b: // {
        this.pos++;
        return 0x7d;
      case 0x5b: // [
        this.pos++;
        return 0x5d;
      case 0x22:
        this.string();
        return 0;
      case 0x74:
        this.literal("true");
        return 0;
      case 0x66:
        this.literal("false");
        return 0;
      case 0x6e:
        this.literal("null");
        return 0;
      default:
        if (c === 0x2d || isDigit(c)) {
          this.number();
          return 0;
        }
        return this.fail("looking for beginning of value");
    }
  }

  text(from: number, to: number): string {
    return this.t.slice(from, to);
  }
}

/**
 * Scan the first JSON value of `text` (iteratively; nesting deeper than 10 000 is an error,
 * as in Go). Throws JsonSyntaxError; an empty input is "EOF" like Go's Decoder.
 */
export function scanFirstValue(text: string): ScannedValue {
  const sc = new Scanner(text);
  sc.skipWs();
  if (sc.peek() === -1) throw new JsonSyntaxError("EOF");
  const topIsObject = sc.peek() === 0x7b;
  const members: RawMember[] = [];
  // stack of closing chars of open containers
  const stack: number[] = [];
  let pendingKey: string | null = null;
  let valueFrom = 0;

  const objectKey = (): void => {
    sc.skipWs();
    if (sc.peek() !== 0x22) sc.fail("looking for beginning of object key string");
    const from = sc.pos;
    sc.string();
    if (stack.length === 1 && topIsObject) pendingKey = JSON.parse(sc.text(from, sc.pos)) as string;
    sc.skipWs();
    if (sc.peek() !== 0x3a) sc.fail("after object key");
    sc.pos++;
    sc.skipWs();
  };

  // called when a complete value ended at sc.pos; records top-level members
  const valueDone = (): void => {
    if (stack.length === 1 && topIsObject && pendingKey !== null) {
      members.push({ key: pendingKey, raw: sc.text(valueFrom, sc.pos) });
      pendingKey = null;
    }
  };

  // Iterative state machine: expecting a value, or expecting a separator / closing.
  let expectValue = true;
  for (;;) {
    if (expectValue) {
      if (stack.length === 1 && topIsObject) valueFrom = sc.pos;
      const close = sc.valueStart();
      if (close === 0) {
        valueDone();
        expectValue = false;
        continue;
      }
      if (stack.length >= MAX_DEPTH) throw new JsonSyntaxError("exceeded max depth");
      stack.push(close);
      sc.skipWs();
      if (sc.peek() === close) {
        sc.pos++;
        stack.pop();
        valueDone();
        expectValue = false;
      } else if (close === 0x7d) {
        objectKey();
      }
      continue;
    }
    if (stack.length === 0) break;
    sc.skipWs();
    const close = stack[stack.length - 1] ?? 0;
    const c = sc.peek();
    if (c === 0x2c) {
      sc.pos++;
      if (close === 0x7d) objectKey();
      else sc.skipWs();
      expectValue = true;
    } else if (c === close) {
      sc.pos++;
      stack.pop();
      valueDone();
    } else {
      sc.fail(close === 0x7d ? "after object key:value pair" : "after array element");
    }
  }
  return { end: sc.pos, members: topIsObject ? members : null };
}
