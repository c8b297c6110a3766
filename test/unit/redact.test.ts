import assert from "node:assert/strict";
import { test } from "node:test";
import { host, redactScenario, redactText } from "../../src/core/redact.ts";

test("host keeps host[:port] only", () => {
  assert.equal(host("https://a.example.test:8443/x/y?token=1"), "a.example.test:8443");
  assert.equal(host("http://u:p@[::1]:8889/whep"), "[::1]:8889");
  assert.equal(host("http://[::1]/whep"), "[::1]");
  assert.equal(host("http://Media.Example.test/whep#frag"), "Media.Example.test");
  assert.equal(host("https://h:443/"), "h:443");
  assert.equal(host("http://127.0.0.1:8889/bench/whep"), "127.0.0.1:8889");
  assert.equal(host("http://tok@h?x=1"), "h");
});

test("host is invalid-url when unparsable or hostless", () => {
  for (const bad of [
    "",
    "not a url",
    "/x/y",
    "http:h",
    "http://",
    "http://h:x/",
    "http://[::1/",
    "http://a\u0001b/",
    ":x",
    "http://user name@h/",
  ]) {
    assert.equal(host(bad), "invalid-url", JSON.stringify(bad));
  }
});

test("redactScenario replaces endpoints by hosts and keeps the rest", () => {
  const s = {
    name: "n",
    whip: "http://u:p@pub.example.test:8889/x?token=T",
    whep: "https://view.example.test/y?token=T",
    viewers: 5,
    rampSeconds: 0,
    holdSeconds: 10,
    bearerEnv: "TOKEN_VAR",
    metrics: "127.0.0.1:9464",
    rampOffsetSeed: 1n << 62n,
  };
  const r = redactScenario(s);
  assert.deepEqual(r, { ...s, whip: "pub.example.test:8889", whep: "view.example.test" });
  assert.equal(s.whep, "https://view.example.test/y?token=T"); // input untouched
  assert.equal(
    "whip" in redactScenario({ whep: "http://h/", viewers: 1, rampSeconds: 0, holdSeconds: 1 }),
    false,
  );
});

test("redactText: a command's output keeps hosts and words, never paths, queries or tokens", () => {
  const cases: [string, string][] = [
    ["sh: 1: bench/servers/janus/start.sh: not found", "sh: 1: <path>: not found"],
    [
      "Error: listen EADDRINUSE: address already in use 127.0.0.1:8891",
      "Error: listen EADDRINUSE: address already in use 127.0.0.1:8891",
    ],
    ["POST http://user:pw@h:8080/live/abc?token=x failed", "POST h:8080 failed"],
    ["token=s3cr3t next", "token=<redacted> next"],
    ['password: "two words" left', "password: <redacted> left"],
    ["Authorization: Bearer abc.def", "Authorization: <redacted> <redacted>"],
    ["sent Bearer abc", "sent Bearer <redacted>"],
    ["key 0123456789abcdef0123456789abcdef", "key <redacted>"],
    ["see ~/x.log or ./run/janus.log", "see <path> or <path>"],
    ["retry?stream=a&key=b", "retry?<query>"],
    ["a\u0007bell\u001b[31m", "a bell [31m"],
  ];
  for (const [text, want] of cases) assert.equal(redactText(text), want, text);
  assert.equal(
    redactText("the env said hunter2-x and hunter2-x", ["hunter2-x"]),
    "the env said <redacted> and <redacted>",
  );
});

test("redactText: a path the caller names as the project's own file is kept as that name", () => {
  const own = (w: string) =>
    w === "/checkout/bench/servers/janus/install.sh" ? "bench/servers/janus/install.sh" : undefined;
  assert.equal(
    redactText(
      "janus-recipe: error: not installed: run /checkout/bench/servers/janus/install.sh first",
      [],
      own,
    ),
    "janus-recipe: error: not installed: run bench/servers/janus/install.sh first",
  );
  // a trailing full stop is the sentence's, not the name's
  assert.equal(
    redactText("run /checkout/bench/servers/janus/install.sh.", [], own),
    "run bench/servers/janus/install.sh.",
  );
  // every other path, endpoint, query and token goes as before
  assert.equal(
    redactText(
      "see /etc/janus/x.cfg, GET http://u:p@h:7080/whip/endpoint/h264?token=T; token=abc /checkout/bench/servers/janus/install.sh?x=1",
      [],
      own,
    ),
    "see <path>, GET h:7080 token=<redacted> <path>",
  );
  // the namer is asked only about path words, never about URLs or secrets
  const asked: string[] = [];
  redactText("http://h/a/b token=c/d e/f", [], (w) => {
    asked.push(w);
    return undefined;
  });
  assert.deepEqual(asked, ["e/f"]);
});
