// `whipbench relay`: its flags; the relay and its life as a server are relay/'s.
import { type Command, Option } from "commander";
import { type RelayFlags, relayCommand } from "../relay/relay-command.ts";
import { intFlag, listenFlag } from "./flags.ts";
import type { SetCode } from "./options.ts";

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
