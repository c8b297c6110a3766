// `whipbench relay`: the built-in relay as a standalone server until interrupted.
import { type Command, Option } from "commander";
import { EXIT_OK, errnoCode, RunError, UsageError } from "../../core/errors.ts";
import { stderrLogger } from "../observe/log.ts";
import { Relay, type RelayOptions } from "../relay/relay.ts";
import { endWithError, withInterrupt } from "../run/exit.ts";
import { intFlag, listenFlag } from "./flags.ts";
import type { SetCode } from "./options.ts";

export interface RelayFlags {
  listen: { host: string; port: number };
  maxViewers?: number;
  dropEvery?: number;
  loseEvery?: number;
  capacity?: number;
  clearMarker?: boolean;
  stripExtensions?: boolean;
  counterOffer?: boolean;
  tokenEnv?: string;
  send?: "native" | "werift";
  workers?: number;
}

/** An every-n-th-packet fault: n from 2. */
const everyFlag = (flag: string) => intFlag(flag, 2, 1e9);

export function addRelay(p: Command, setCode: SetCode): void {
  p.command("relay")
    .description("serve the built-in WHIP/WHEP relay: WHIP at /<stream>/whip, WHEP at /<stream>/whep")
    .addOption(
      new Option("--listen <addr>", "HTTP listen address (a bare port binds 127.0.0.1)")
        .default({ host: "127.0.0.1", port: 8889 }, "127.0.0.1:8889")
        .argParser(listenFlag("--listen")),
    )
    .option("--max-viewers <n>", "refuse WHEP attempts past n with 503", intFlag("--max-viewers", 0, 1e6))
    .option(
      "--drop-every <n>",
      "drop every n-th packet per viewer (unrecoverable)",
      everyFlag("--drop-every"),
    )
    .option(
      "--lose-every <n>",
      "lose every n-th packet per viewer (a NACK repairs it)",
      everyFlag("--lose-every"),
    )
    .option(
      "--capacity <n>",
      "with more than n viewers connected, every viewer loses every 20th packet (unrecoverable)",
      intFlag("--capacity", 1, 1e6),
    )
    .option("--clear-marker", "forward with the marker bit cleared")
    .option("--strip-extensions", "forward with no RTP header extension")
    .option("--counter-offer", "answer WHEP with 406 and the relay's own offer (viewer PATCHes its answer)")
    .option("--token-env <name>", "require the bearer token held by this environment variable")
    .addOption(
      new Option(
        "--send <path>",
        "how viewers' video is sent: native (OpenSSL SRTP, sendmmsg; werift where it cannot run) or werift",
      )
        .choices(["native", "werift"])
        .default("native"),
    )
    .option(
      "--workers <n>",
      "relay threads the native send path runs in, legs shared round robin (0 = the main thread)",
      intFlag("--workers", 0, 64),
    )
    .action(async (flags: RelayFlags) => setCode(await relayCommand(flags)));
}

export async function relayCommand(flags: RelayFlags): Promise<number> {
  const log = stderrLogger();
  let token: string | undefined;
  if (flags.tokenEnv) {
    token = process.env[flags.tokenEnv];
    if (!token) throw new UsageError(`--token-env ${flags.tokenEnv}: the variable is empty or unset`);
  }
  const loopback = flags.listen.host === "127.0.0.1" || flags.listen.host === "localhost";
  const opts: RelayOptions = { ice: { loopbackOnly: loopback, includeLoopback: !loopback }, token };
  if (flags.maxViewers) opts.maxViewers = flags.maxViewers;
  if (flags.dropEvery) opts.dropEvery = flags.dropEvery;
  if (flags.loseEvery) opts.loseEvery = flags.loseEvery;
  if (flags.capacity) opts.capacity = flags.capacity;
  if (flags.clearMarker) opts.clearMarker = true;
  if (flags.stripExtensions) opts.stripExtensions = true;
  if (flags.counterOffer) opts.counterOffer = true;
  if (flags.send) opts.send = flags.send;
  if (flags.workers) opts.threads = flags.workers;
  const relay = new Relay(opts);
  let base: string;
  try {
    base = await relay.listen(flags.listen.host, flags.listen.port);
  } catch (err) {
    return endWithError(new RunError(`cannot listen: ${errnoCode(err) ?? "error"}`, { cause: err }), "relay");
  }
  log.line(`relay listening on ${base}: WHIP ${base}/<stream>/whip, WHEP ${base}/<stream>/whep`);
  log.line(`relay send path: ${relay.send.describe()}`);
  return withInterrupt(log, async (interrupt) => {
    await new Promise<void>((resolve) =>
      interrupt.addEventListener("abort", () => resolve(), { once: true }),
    );
    await relay.close();
    return EXIT_OK;
  });
}
