// `whipbench relay`: the built-in relay as a standalone server until interrupted.

import { stderrLogger } from "../observe/log.ts";
import { Relay, type RelayOptions } from "../relay/relay.ts";
import { withInterrupt } from "./execute.ts";
import { UsageError } from "./flags.ts";

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
}

export async function relayCommand(flags: RelayFlags): Promise<number> {
  const log = stderrLogger();
  let token: string | undefined;
  if (flags.tokenEnv) {
    token = process.env[flags.tokenEnv];
    if (!token)
      throw new UsageError(`whipbench relay: --token-env ${flags.tokenEnv}: the variable is empty or unset`);
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
  const relay = new Relay(opts);
  let base: string;
  try {
    base = await relay.listen(flags.listen.host, flags.listen.port);
  } catch (err) {
    process.stderr.write(`whipbench relay: cannot listen: ${(err as { code?: string }).code ?? "error"}\n`);
    return 1;
  }
  log.line(`relay listening on ${base}: WHIP ${base}/<stream>/whip, WHEP ${base}/<stream>/whep`);
  return withInterrupt(log, async (interrupt) => {
    await new Promise<void>((resolve) =>
      interrupt.addEventListener("abort", () => resolve(), { once: true }),
    );
    await relay.close();
    return 0;
  });
}
