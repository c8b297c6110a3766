// The command line (docs/definitions.md#command-line) on commander: run, view, publish, relay,
// compare, matrix, version. Usage errors print one line naming the flag or key and exit 2; runs
// exit 0 (valid), 1 (error), 3 (no verdict), 99 (valid, a threshold failed).
import { Command, CommanderError, Option } from "commander";
import { ClipError } from "../../core/clip/clip.ts";
import { goDuration } from "../../core/go-compat/time.ts";
import { RECEIVE_PATHS } from "../../core/scenario/defaults.ts";
import { ScenarioError } from "../../core/scenario/scenario.ts";
import { capacityCommand } from "../capacity/cmd-capacity.ts";
import { addServerWatchOptions } from "../observe/server-watch-flags.ts";
import { addCompare, addMatrix } from "./cli-ci.ts";
import { addAgent, addCoordinatorOptions } from "./cmd-agent.ts";
import { publishCommand } from "./cmd-publish.ts";
import { relayCommand } from "./cmd-relay.ts";
import { runCommand, viewCommand } from "./cmd-run.ts";
import { EXIT_USAGE } from "./execute.ts";
import { durationFlag, hostPortFlag, intFlag, listenFlag, seedFlag, UsageError } from "./flags.ts";
import { version } from "./version.ts";

const ETIQUETTE = `Load-test only servers you run, a managed service on your own account within its terms,
or with written permission (docs/load-testing-etiquette.md). Reports record endpoint hosts only:
never paths, query strings or tokens.`;

function receivePathOption(): Option {
  return new Option(
    "--receive-path <path>",
    "how viewers receive media: werift's own path, the lean one, or the lean one read in batches (arena, the default; lean where it cannot run)",
  ).choices(RECEIVE_PATHS);
}

/** The options `run`, `view` and `capacity` share. */
function workersOption(): Option {
  return new Option("--workers <n>", "worker threads for viewers (0 = main thread)").argParser(
    intFlag("--workers", 0, 256),
  );
}

function rampOffsetSeedOption(): Option {
  return new Option("--ramp-offset-seed <n>", "seed of the per-viewer start offset").argParser(
    seedFlag("--ramp-offset-seed"),
  );
}

function rampOffsetMaxOption(): Option {
  return new Option("--ramp-offset-max <duration>", "bound of the per-viewer start offset").argParser(
    durationFlag("--ramp-offset-max"),
  );
}

/** A duration flag whose help shows its default as a duration (`30s`), not as nanoseconds. */
function durationOption(flags: string, description: string, defaultNs: number): Option {
  const name = flags.split(" ")[0] ?? flags;
  return new Option(flags, description)
    .default(defaultNs, goDuration(defaultNs))
    .argParser(durationFlag(name));
}

/** What `run` and `view` write and show. */
function outputOptions(c: Command): void {
  c.option("--quiet", "no progress lines on stderr")
    .option("--json", "print the report JSON on stdout (the human lines go to stderr)")
    .option("--html", "write an HTML report beside the JSON and Markdown (the default)")
    .option("--no-html", "do not write the HTML report")
    .option("--junit <file>", "write the thresholds as JUnit XML (one testcase per threshold)")
    .option("--summary-md <file>", "write a short Markdown summary (for a CI job summary)");
}

type SetCode = (code: number) => void;

function program(setCode: SetCode): Command {
  const p = new Command("whipbench")
    .description("Load engine and benchmark for WebRTC media servers over WHIP and WHEP")
    .addHelpText("after", `\nRun \`whipbench <command> --help\` for its flags.\n\n${ETIQUETTE}\n`)
    .version(`whipbench ${version()}`, "-v, --version", "print the version")
    .exitOverride();
  addRun(p, setCode);
  addCapacity(p, setCode);
  addView(p, setCode);
  addPublish(p, setCode);
  addRelay(p, setCode);
  addAgent(p, setCode);
  addCompare(p, setCode);
  addMatrix(p, setCode);
  p.command("version")
    .description("print the version")
    .action(() => {
      process.stdout.write(`whipbench ${version()}\n`);
      setCode(0);
    });
  return p;
}

function addRun(p: Command, setCode: SetCode): void {
  p.command("run")
    .description("one publisher plus viewers on a ramp; with no scenario, against the built-in relay")
    .argument("[scenario]", "scenario JSON file (default: 10 VP8 viewers through the built-in relay)")
    .option("--out <dir>", "report directory", ".")
    .option("--metrics <addr>", "serve Prometheus /metrics on this address while the run lasts")
    .addOption(rampOffsetSeedOption())
    .addOption(rampOffsetMaxOption())
    .addOption(workersOption())
    .addOption(receivePathOption())

    .action(async (file: string | undefined, opts) => setCode(await runCommand(file, opts)));
  outputOptions(p.commands[p.commands.length - 1] as Command);
  addCoordinatorOptions(p.commands[p.commands.length - 1] as Command);
}

function addCapacity(p: Command, setCode: SetCode): void {
  p.command("capacity")
    .description(
      "find the most viewers the server holds within the scenario's thresholds (a search over steps)",
    )
    .argument("<scenario>", "scenario JSON file with thresholds (and optionally a capacity key)")
    .option("--out <dir>", "report directory", ".")
    .addOption(workersOption())
    .addOption(receivePathOption())
    .option("--quiet", "no progress lines on stderr")
    .option("--json", "print the capacity report JSON on stdout (the human lines go to stderr)")
    .option("--no-html", "do not write the HTML page");
  addServerWatchOptions(p.commands[p.commands.length - 1] as Command).action(async (file: string, opts) =>
    setCode(await capacityCommand(file, opts)),
  );
}

function addView(p: Command, setCode: SetCode): void {
  p.command("view")
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
    .addOption(rampOffsetSeedOption())
    .addOption(rampOffsetMaxOption())
    .addOption(workersOption())
    .addOption(receivePathOption())
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
    )
    .action(async (opts) => setCode(await viewCommand(opts)));
  outputOptions(p.commands[p.commands.length - 1] as Command);
}

function addPublish(p: Command, setCode: SetCode): void {
  p.command("publish")
    .description("publish the clip in a loop over WHIP (no report)")
    .option("--whip <url>", "WHIP endpoint URL (required)")
    .addOption(new Option("--codec <codec>", "embedded clip").choices(["vp8", "h264"]).default("vp8"))
    .option(
      "--clip <file>",
      "stream this file instead (IVF for vp8, Annex-B for h264); an Ogg/Opus file is the audio track (repeatable)",
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
    .action(async (opts) => setCode(await publishCommand(opts)));
}

function addRelay(p: Command, setCode: SetCode): void {
  p.command("relay")
    .description("serve the built-in WHIP/WHEP relay: WHIP at /<stream>/whip, WHEP at /<stream>/whep")
    .addOption(
      new Option("--listen <addr>", "HTTP listen address (a bare port binds 127.0.0.1)")
        .default({ host: "127.0.0.1", port: 8889 }, "127.0.0.1:8889")
        .argParser(listenFlag("--listen")),
    )
    .option(
      "--max-viewers <n>",
      "refuse WHEP attempts past n with 503",
      intFlag("--max-viewers", 0, 1_000_000),
    )
    .option(
      "--drop-every <n>",
      "drop every n-th packet per viewer (unrecoverable)",
      intFlag("--drop-every", 2, 1e9),
    )
    .option(
      "--lose-every <n>",
      "lose every n-th packet per viewer (a NACK repairs it)",
      intFlag("--lose-every", 2, 1e9),
    )
    .option(
      "--capacity <n>",
      "with more than n viewers connected, every viewer loses every 20th packet (unrecoverable)",
      intFlag("--capacity", 1, 1_000_000),
    )
    .option("--clear-marker", "forward with the marker bit cleared")
    .option("--strip-extensions", "forward with no RTP header extension")
    .option("--counter-offer", "answer WHEP with 406 and the relay's own offer (viewer PATCHes its answer)")
    .option("--token-env <name>", "require the bearer token held by this environment variable")
    .action(async (opts) => setCode(await relayCommand(opts)));
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const sub = argv[0] ?? "";
  const p = program((c) => {
    code = c;
  });
  p.configureOutput({
    outputError: (text, write) => {
      const unknown = /^error: unknown command '(.*)'/.exec(text);
      write(
        unknown
          ? `whipbench: unknown command "${unknown[1]}"\n\n`
          : `whipbench ${sub}: ${text.replace(/^error: /, "")}`,
      );
    },
  });
  for (const c of p.commands) c.exitOverride().configureOutput(p.configureOutput());
  // every command that sends traffic ends its usage text with the rule (docs/load-testing-etiquette.md)
  for (const c of p.commands) if (c.name() !== "version") c.addHelpText("after", `\n${ETIQUETTE}\n`);
  if (argv.length === 0) {
    p.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  try {
    await p.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = ["commander.helpDisplayed", "commander.version", "commander.help"].includes(err.code);
      if (err.code === "commander.unknownCommand") p.outputHelp({ error: true });
      return ok ? 0 : EXIT_USAGE;
    }
    if (err instanceof UsageError || err instanceof ScenarioError || err instanceof ClipError) {
      const msg = err.message.startsWith("whipbench ") ? err.message : `whipbench ${sub}: ${err.message}`;
      process.stderr.write(`${msg}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`whipbench ${sub}: ${(err as Error).message}\n`);
    return 1;
  }
  return code;
}
