// `whipbench publish --whip URL`: its flags; the publishing is publisher/'s.
import { type Command, Option } from "commander";
import { type PublishFlags, publishCommand } from "../publisher/publish-command.ts";
import { durationFlag, hostPortFlag, intFlag } from "./flags.ts";
import type { SetCode } from "./options.ts";

export function addPublish(p: Command, setCode: SetCode): void {
  p.command("publish")
    .description("publish the clip in a loop over WHIP (no report)")
    .option("--whip <url>", "WHIP endpoint URL (required)")
    .addOption(new Option("--codec <codec>", "embedded clip").choices(["vp8", "h264"]).default("vp8"))
    .option(
      "--clip <file>",
      "stream this file instead (IVF for vp8, Annex-B for h264; vp8-tl: the embedded clip with two temporal layers); an Ogg/Opus file is the audio track (repeatable)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--audio", "send the embedded Opus clip as a second track")
    .option("--fps <n>", "frame rate of an H.264 clip (overrides the SPS)", intFlag("--fps", 1, 1000))
    .option(
      "--duration <duration>",
      "stop after this long (default: until interrupted)",
      durationFlag("--duration"),
    )
    .option(
      "--connect-timeout <duration>",
      "give up when not connected (POST, ICE and DTLS) within this long (default: 10s)",
      durationFlag("--connect-timeout"),
    )
    .option("--bearer-env <name>", "environment variable holding a bearer token")
    .option("--include-loopback", "add loopback ICE candidates")
    .option("--loopback-only", "gather ICE candidates on 127.0.0.1 only")
    .option("--no-stamp", "do not write abs-capture-time")
    .option(
      "--clock-listen <addr>",
      "answer the UDP clock exchange on this address (HOST:PORT) while publishing",
      hostPortFlag("--clock-listen", false),
    )
    .option(
      "--send-log-listen <addr>",
      "serve the send log on this address (HOST:PORT) for a `view --send-log-peer` on another host",
      hostPortFlag("--send-log-listen", false),
    )
    .action(async (flags: PublishFlags) => setCode(await publishCommand(flags)));
}
