// `whipbench view --whep URL`: its flags; the viewers' run is run/'s (view-command.ts).
import { type Command, Option } from "commander";
import { MAX_REFERENCE_VIEWERS } from "../../core/link/parse.ts";
import { type ViewFlags, viewCommand } from "../run/view-command.ts";
import { hostPortFlag, intFlag } from "./flags.ts";
import { addViewerOptions, durationOption, outputOptions, type SetCode } from "./options.ts";

export function addView(p: Command, setCode: SetCode): void {
  const c = p
    .command("view")
    .description("N concurrent WHEP viewers of a stream someone else publishes, then a report")
    .option("--whep <url>", "WHEP endpoint URL (required)")
    .addOption(new Option("-n <viewers>", "viewers").default(10).argParser(intFlag("-n", 0, 1_000_000)))
    .addOption(durationOption("--ramp <duration>", "spread the starts over this long", 0))
    .addOption(durationOption("--duration <duration>", "hold after the ramp", 30e9))
    .addOption(durationOption("--join-timeout <duration>", "POST → first complete keyframe", 10e9))
    .option("--name <name>", "scenario name (title and file name)")
    .option("--bearer-env <name>", "environment variable holding a bearer token")
    .option("--metrics <addr>", "serve Prometheus /metrics on this address while the run lasts")
    .option("--include-loopback", "add loopback ICE candidates")
    .option("--loopback-only", "gather ICE candidates on 127.0.0.1 only")
    .addOption(
      new Option(
        "--reference-viewers <n>",
        "libwebrtc viewers beside the viewers, as the run's reference; not load",
      ).argParser(intFlag("--reference-viewers", 0, MAX_REFERENCE_VIEWERS)),
    );
  addViewerOptions(c)
    .option("--out <dir>", "report directory", ".")
    .option(
      "--clock-peer <addr>",
      "measure the publisher's clock against its --clock-listen (HOST:PORT)",
      hostPortFlag("--clock-peer", true),
    )
    .option(
      "--send-log-peer <addr>",
      "follow the publisher's send log (its --send-log-listen, HOST:PORT) for a fingerprint one-way delay",
      hostPortFlag("--send-log-peer", true),
    );
  outputOptions(c).action(async (flags: ViewFlags) => setCode(await viewCommand(flags)));
}
