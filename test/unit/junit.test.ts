import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { junitXml, summaryMarkdown, xmlEscape } from "../../src/core/report/threshold-render.ts";
import { applyThresholds, evaluateThresholds } from "../../src/core/thresholds/evaluate.ts";
import { parseThresholds } from "../../src/core/thresholds/parse.ts";
import { healthyViewers, makeInput, makeScenario, withFailures } from "./report-fixtures.ts";

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const ENTITY: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function xmlUnescape(s: string): string {
  if (/&(?!(amp|lt|gt|quot|apos);)/.test(s)) throw new Error(`bad entity in ${JSON.stringify(s)}`);
  if (/[<]/.test(s)) throw new Error(`raw < in ${JSON.stringify(s)}`);
  return s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITY[e] ?? "");
}

/** A strict little well-formedness check of the XML the JUnit writer emits: one root, balanced tags, quoted attributes, known entities. */
function parseXml(xml: string): XmlNode {
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/;
  assert.match(xml, decl);
  const body = xml.replace(decl, "");
  const token =
    /<\/([A-Za-z_][\w.-]*)\s*>|<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const root: XmlNode = { name: "#doc", attrs: {}, children: [], text: "" };
  const stack = [root];
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < body.length) {
    token.lastIndex = at;
    m = token.exec(body);
    if (m === null) throw new Error(`not well-formed at ${at}: ${body.slice(at, at + 40)}`);
    at = token.lastIndex;
    const top = stack[stack.length - 1] as XmlNode;
    if (m[1] !== undefined) {
      if (top.name !== m[1]) throw new Error(`</${m[1]}> closes <${top.name}>`);
      stack.pop();
    } else if (m[2] !== undefined) {
      const attrs: Record<string, string> = {};
      for (const a of (m[3] ?? "").matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
        if (a[1] === undefined || a[1] in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1]] = xmlUnescape(a[2] ?? "");
      }
      const node: XmlNode = { name: m[2], attrs, children: [], text: "" };
      top.children.push(node);
      if (m[4] !== "/") stack.push(node);
    } else {
      const text = xmlUnescape(m[5] ?? "");
      if (stack.length === 1 && text.trim() !== "") throw new Error("text outside the root");
      top.text += text;
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]?.name}>`);
  const elements = root.children;
  assert.equal(elements.length, 1, "one root element");
  return elements[0] as XmlNode;
}

function judged(thresholds: Record<string, unknown>, name = 'gate <&> "test"') {
  const r = buildReport(makeInput(healthyViewers(3), { scenario: makeScenario(3, { name }) }));
  return applyThresholds(r, evaluateThresholds(r, parseThresholds(thresholds), null));
}

describe("JUnit XML", () => {
  test("one testcase per threshold plus the verdict; failures say observed vs wanted", () => {
    const r = judged({ "oneWayDelay.max": "< 5ms", stalls: "== 0", "packetTransit.p95": "< 1ms" });
    const xml = junitXml(r);
    const root = parseXml(xml);
    assert.equal(root.name, "testsuites");
    assert.deepEqual([root.attrs.tests, root.attrs.failures], ["4", "2"]);
    const suite = root.children[0];
    assert.equal(suite?.name, "testsuite");
    assert.equal(suite?.attrs.name, 'whipbench gate <&> "test"');
    const cases = suite?.children ?? [];
    assert.deepEqual(
      cases.map((c) => [c.attrs.name, c.children[0]?.attrs.message ?? null]),
      [
        ["verdict", null],
        ["oneWayDelay.max < 5ms", "observed 12.0 ms, wanted < 5ms"],
        ["stalls == 0", null],
        [
          "packetTransit.p95 < 1ms",
          `observed unavailable: ${r.aggregate.packetTransit.reason}, wanted < 1ms`,
        ],
      ],
    );
    for (const c of cases) assert.equal(c.name, "testcase");
  });

  test("a run with no verdict fails its verdict testcase", () => {
    const r = withFailures(10, 5);
    const root = parseXml(junitXml(r));
    const verdict = root.children[0]?.children[0];
    assert.equal(verdict?.attrs.name, "verdict");
    assert.equal(verdict?.children[0]?.attrs.message, r.aggregate.verdict);
  });

  test("escapes markup and drops characters XML cannot carry", () => {
    assert.equal(xmlEscape(`a<b>&"c'\u0001\u0000d`), "a&lt;b&gt;&amp;&quot;c&apos;d");
    parseXml(junitXml(judged({ stalls: "== 1" }, "x\u0007<y>")));
  });

  test("python's XML parser agrees, where python is installed", (t) => {
    const xml = junitXml(judged({ "oneWayDelay.max": "< 5ms", stalls: "== 0" }));
    const py = spawnSync(
      "python3",
      [
        "-c",
        "import sys,xml.dom.minidom as m; d=m.parseString(sys.stdin.buffer.read()); print(len(d.getElementsByTagName('failure')))",
      ],
      { input: xml, encoding: "utf8" },
    );
    if (py.error !== undefined || py.status === null) {
      t.skip("python3 not installed");
      return;
    }
    assert.equal(py.status, 0, py.stderr);
    assert.equal(py.stdout.trim(), "1");
  });
});

describe("CI summary Markdown", () => {
  test("title, verdict line and the table", () => {
    const md = summaryMarkdown(judged({ "oneWayDelay.max": "< 5ms", stalls: "== 0" }, "ci"));
    assert.match(
      md,
      /^### whipbench: ci\n\n\*\*valid, 1 of 2 thresholds failed: 3 of 3 viewers joined\*\*\n/,
    );
    assert.match(
      md,
      /\| \*\*FAIL\*\* \| `oneWayDelay\.max` \| `< 5ms` \| 12\.0 ms \|\n\| pass \| `stalls` \| `== 0` \| 0 \|/,
    );
  });
});
