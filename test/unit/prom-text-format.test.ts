// The strict Prometheus text-format parser (src/core/prom/text-format.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  matchesSelector,
  parsePromSelector,
  parsePromText,
  sampleKind,
} from "../../src/core/prom/text-format.ts";

const TEXT = [
  "# HELP http_requests_total The total number of HTTP requests.",
  "# TYPE http_requests_total counter",
  'http_requests_total{method="post",code="200"} 1027 1395066363000',
  'http_requests_total{method="post",code="400",} 3',
  "# a free comment",
  "",
  "# TYPE conns gauge",
  "conns 12.5",
  'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9',
  "# TYPE rpc_duration_seconds summary",
  'rpc_duration_seconds{quantile="0.99"} +Inf',
  "rpc_duration_seconds_count 2693",
  "# TYPE jobs counter",
  "jobs_total 7\r",
  "untyped_thing NaN",
].join("\n");

test("samples, labels with escapes and a trailing comma, special values, declared types", () => {
  const s = parsePromText(TEXT);
  assert.equal(s.samples.length, 8);
  assert.deepEqual(s.samples[0], {
    name: "http_requests_total",
    labels: { method: "post", code: "200" },
    value: 1027,
  });
  assert.deepEqual(s.samples[1]?.labels, { method: "post", code: "400" });
  assert.deepEqual(s.samples[3]?.labels, {
    path: "C:\\DIR\\FILE.TXT",
    error: 'Cannot find file:\n"FILE.TXT"',
  });
  assert.equal(s.samples[3]?.value, 1.458255915e9);
  assert.equal(s.samples[4]?.value, Number.POSITIVE_INFINITY);
  assert.equal(s.samples[6]?.value, 7);
  assert.ok(Number.isNaN(s.samples[7]?.value));
  assert.equal(s.types.get("conns"), "gauge");
  assert.equal(sampleKind("http_requests_total", s.types), "counter");
  assert.equal(sampleKind("conns", s.types), "gauge");
  assert.equal(sampleKind("jobs_total", s.types), "counter", "a family declared without _total");
  assert.equal(sampleKind("rpc_duration_seconds_count", s.types), "counter");
  assert.equal(sampleKind("rpc_duration_seconds", s.types), "gauge", "a quantile is a level");
  assert.equal(sampleKind("untyped_thing", s.types), "gauge");
});

test("malformed lines are errors naming the line", () => {
  const bad: [string, RegExp][] = [
    ["ok 1\nbad{a=1} 2", /^line 2: want a quoted value for label a/],
    ['x{a="1', /^line 1: the value of label a is not closed/],
    ['x{a="1" 1', /^line 1: want , or } after a label/],
    ["x 1 2 3", /^line 1: want a value/],
    ["x abc", /^line 1: the value is not a number/],
    ["x", /^line 1: want a value/],
    ['x{a="1"}1', /^line 1: want a value/],
    ['x{a="1",a="2"} 1', /^line 1: label a given twice/],
    ['x{a="\\t"} 1', /^line 1: a bad escape/],
    ["x 1 1.5", /^line 1: the timestamp is not an integer/],
    ["# TYPE x countr", /^line 1: unknown metric type "countr"/],
    ["# TYPE x gauge\n# TYPE x gauge", /^line 2: a second TYPE line for x/],
    ["9x 1", /^line 1: a sample must start with a metric name/],
  ];
  for (const [text, want] of bad) assert.throws(() => parsePromText(text), { message: want }, text);
});

test("selectors: a name or name{labels}, matched on a subset of the sample's labels", () => {
  assert.deepEqual(parsePromSelector("conns"), { name: "conns", labels: {} });
  const sel = parsePromSelector('http_requests_total{code="200"}');
  assert.deepEqual(sel, { name: "http_requests_total", labels: { code: "200" } });
  for (const bad of ["", "9a", "a{b}", 'a{b="1"} x', "a b", 'a{b="1"']) {
    assert.equal(parsePromSelector(bad), null, bad);
  }
  const [ok, other] = parsePromText(TEXT).samples;
  assert.ok(sel && ok && other);
  assert.equal(matchesSelector(sel, ok), true);
  assert.equal(matchesSelector(sel, other), false);
  assert.equal(matchesSelector({ name: "http_requests_total", labels: {} }, other), true);
  assert.equal(matchesSelector({ name: "http_requests", labels: {} }, other), false);
});
