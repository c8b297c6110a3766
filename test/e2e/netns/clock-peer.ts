// Helper process for test/e2e/netns-clock.test.ts: run inside a network namespace as either
// the clock responder (`responder HOST PORT`, its wall clock shifted by
// WHIPBENCH_TEST_WALL_OFFSET_MS through the preloaded test/e2e/faults/wall-offset.ts) or the measuring client (`measure HOST PORT`, prints the point
// as JSON on stdout).
import { takeWallAnchor } from "../../../src/core/clock/clock.ts";
import { ClockClient, startResponder } from "../../../src/main/split/clock-exchange.ts";

const [mode, host, portText] = process.argv.slice(2);
const port = Number(portText);
if (mode === "responder") {
  const r = await startResponder(host ?? "", port, takeWallAnchor());
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => void r.close().then(() => process.exit(0)));
} else {
  const client = await ClockClient.open(takeWallAnchor());
  const p = await client.measure(host ?? "", port);
  process.stdout.write(`${JSON.stringify(p)}\n`);
  await client.close();
}
