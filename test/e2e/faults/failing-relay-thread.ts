// A relay thread that fails (test/e2e/relay-thread-lost.test.ts): the real one
// (src/main/relay/relay-thread.ts), then an uncaught error FAIL_AFTER_MS after it started, as a
// crash inside the thread would end it.
import "../../../src/main/relay/relay-thread.ts";

const FAIL_AFTER_MS = 3000;

setTimeout(() => {
  throw new Error("injected relay thread failure");
}, FAIL_AFTER_MS);
