// `whipbench relay`: its flags; the relay and its life as a server are relay/'s.
import { type Command, Option } from "commander";
import { type RelayFlags, relayCommand } from "../relay/relay-command.ts";
import { durationFlag, intFlag, listenFlag, percentFlag } from "./flags.ts";
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
    .option(
      "--layer-estimate",
      "simulcast: a viewer that chose no layer gets the highest its leg's feedback estimate carries",
    )
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
    .option(
      "--link-loss <pct>",
      "every viewer's link loses this share of all datagrams (STUN, DTLS, SRTP, RTCP)",
      percentFlag("--link-loss"),
    )
    .option(
      "--link-burst <n>",
      "loss in bursts of n datagrams on average (Gilbert–Elliott; needs --link-loss)",
      intFlag("--link-burst", 1, 10000),
    )
    .option(
      "--link-delay <dur>",
      "every datagram to a viewer delayed this long",
      durationFlag("--link-delay"),
    )
    .option(
      "--link-jitter <dur>",
      "plus normal jitter of this standard deviation (reorders)",
      durationFlag("--link-jitter"),
    )
    .option("--link-duplicate <pct>", "this share of datagrams sent twice", percentFlag("--link-duplicate"))
    .option(
      "--link-after <dur>",
      "the link starts this long after each viewer's first datagram",
      durationFlag("--link-after"),
    )
    .option(
      "--link-seed <n>",
      "seed of every viewer link's draws (default 0)",
      intFlag("--link-seed", 0, Number.MAX_SAFE_INTEGER),
    )
    .option("--link-media-only", "the link takes SRTP and SRTCP only (the handshake crosses unimpaired)")
    .action(async (flags: RelayFlags) => setCode(await relayCommand(flags)));
}
