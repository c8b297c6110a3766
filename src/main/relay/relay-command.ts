// What `whipbench relay` does: the built-in relay as a standalone server until interrupted.
import { EXIT_OK, errnoCode, RunError } from "../../core/errors.ts";
import { stderrLogger } from "../observe/log.ts";
import { endWithError, withInterrupt } from "../process/exit.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import { describeLink, type LinkFlags, linkProfile } from "./link-flags.ts";
import { Relay, type RelayOptions } from "./relay.ts";

export interface RelayFlags extends LinkFlags {
  listen: { host: string; port: number };
  maxViewers?: number;
  dropEvery?: number;
  loseEvery?: number;
  capacity?: number;
  clearMarker?: boolean;
  stripExtensions?: boolean;
  counterOffer?: boolean;
  layerEstimate?: boolean;
  tokenEnv?: string;
  send?: "native" | "werift";
  workers?: number;
}

export async function relayCommand(flags: RelayFlags): Promise<number> {
  const log = stderrLogger();
  const token = tokenFromEnv("--token-env", flags.tokenEnv);
  const loopback = flags.listen.host === "127.0.0.1" || flags.listen.host === "localhost";
  const opts: RelayOptions = { ice: { loopbackOnly: loopback, includeLoopback: !loopback }, token };
  if (flags.maxViewers) opts.maxViewers = flags.maxViewers;
  if (flags.dropEvery) opts.dropEvery = flags.dropEvery;
  if (flags.loseEvery) opts.loseEvery = flags.loseEvery;
  if (flags.capacity) opts.capacity = flags.capacity;
  if (flags.clearMarker) opts.clearMarker = true;
  if (flags.stripExtensions) opts.stripExtensions = true;
  if (flags.counterOffer) opts.counterOffer = true;
  if (flags.layerEstimate) opts.layerEstimate = true;
  if (flags.send) opts.send = flags.send;
  if (flags.workers) opts.threads = flags.workers;
  opts.onThreadLost = (line) => log.line(line);
  const link = linkProfile(flags);
  if (link !== undefined) opts.link = link;
  const relay = new Relay(opts);
  let base: string;
  try {
    base = await relay.listen(flags.listen.host, flags.listen.port);
  } catch (err) {
    return endWithError(new RunError(`cannot listen: ${errnoCode(err) ?? "error"}`, { cause: err }), "relay");
  }
  log.line(`relay listening on ${base}: WHIP ${base}/<stream>/whip, WHEP ${base}/<stream>/whep`);
  log.line(`relay send path: ${relay.send.describe()}`);
  if (link !== undefined) log.line(`relay link, to each viewer: ${describeLink(link)}`);
  return withInterrupt(log, async (interrupt) => {
    await new Promise<void>((resolve) =>
      interrupt.addEventListener("abort", () => resolve(), { once: true }),
    );
    await relay.close();
    return EXIT_OK;
  });
}
