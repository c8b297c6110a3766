// The flags for the main scenario keys (docs/definitions.md#run-flags): `run` takes -n/--viewers,
// --ramp, --hold, --simulcast, --layer-switch, --reference-viewers, --codec, --audio and
// --whip/--whep over its scenario's keys (or the built-in relay's default scenario); `capacity`
// those a search does not set itself. Each bad value exits 2 naming its flag, and the report's
// scenario is the one that ran, flags applied.
import { type Command, Option } from "commander";
import { SIMULCAST_RIDS } from "../../core/clip/simulcast.ts";
import { errorMessage, UsageError } from "../../core/errors.ts";
import { isHttpUrl } from "../../core/go-compat/url.ts";
import { type LayerSwitchSpec, parseLayerSwitch } from "../../core/layer/layer-switch.ts";
import { MAX_REFERENCE_VIEWERS } from "../../core/link/parse.ts";
import { parseSimulcast } from "../../core/scenario/simulcast.ts";
import { durationFlag, intFlag } from "./flags.ts";

/** A duration above 0 (parseGoDuration already refuses a negative one and one beyond exact ns). */
function positiveDuration(flag: string): (text: string) => number {
  const parse = durationFlag(flag);
  return (text) => {
    const ns = parse(text);
    if (ns === 0) throw new UsageError(`${flag}: must be positive`);
    return ns;
  };
}

/** An http(s) URL; the message never echoes it (it may hold a token). */
function urlFlag(flag: string): (text: string) => string {
  return (text) => {
    if (!isHttpUrl(text)) throw new UsageError(`${flag} must be an http(s) URL`);
    return text;
  };
}

function endpointOptions(c: Command): Command {
  return c
    .addOption(
      new Option("--whip <url>", "WHIP endpoint (over the scenario's whip)").argParser(urlFlag("--whip")),
    )
    .addOption(
      new Option("--whep <url>", "WHEP endpoint (over the scenario's whep)").argParser(urlFlag("--whep")),
    )
    .addOption(
      new Option("--codec <codec>", "video codec (over the scenario's codec)").choices(["vp8", "h264"]),
    )
    .option("--audio", "send and receive an Opus track too (scenario key audio)")
    .option("--no-audio", "video only (scenario key audio false)");
}

/** --simulcast's rids, a comma list; a bad one is a usage error naming the flag. */
function simulcastFlag(text: string): string[] {
  const rids = text.split(",");
  const bad = rids.findIndex((r) => !SIMULCAST_RIDS.includes(r));
  if (bad >= 0)
    throw new UsageError(
      `--simulcast: item ${bad} is not a layer (want a comma list of ${SIMULCAST_RIDS.join(", ")})`,
    );
  try {
    return parseSimulcast(rids) ?? [];
  } catch (err) {
    throw new UsageError(
      `--simulcast: ${errorMessage(err).replace(/^scenario: simulcast: /, "")}`,
      undefined,
      {
        cause: err,
      },
    );
  }
}

const LAYER_SWITCH_WANT = "want <startRid>, <startRid>:<duration>:<rid> or :<duration>:<rid>, e.g. l:2s:h";

/**
 * --layer-switch's value (docs/definitions.md#layer-switches): `l` starts on l, `l:2s:h` also asks
 * for h 2 s after the viewer's WHEP POST, `:2s:h` only switches. A bad one names the flag.
 */
function layerSwitchFlag(text: string): LayerSwitchSpec {
  const parts = text.split(":");
  if (parts.length !== 1 && parts.length !== 3) throw new UsageError(`--layer-switch: ${LAYER_SWITCH_WANT}`);
  const [start = "", at, rid] = parts;
  for (const [n, r] of [start, rid].entries())
    if (r !== undefined && (n === 1 || r !== "") && !SIMULCAST_RIDS.includes(r))
      throw new UsageError(
        `--layer-switch: ${n === 0 ? "the start" : "the switch's"} layer is not one of ${SIMULCAST_RIDS.join(", ")}`,
      );
  const raw: Record<string, unknown> = start !== "" ? { startRid: start } : {};
  if (at !== undefined) raw["atSeconds"] = durationFlag("--layer-switch")(at) / 1e9;
  if (rid !== undefined) raw["rid"] = rid;
  try {
    return parseLayerSwitch(raw);
  } catch (err) {
    const why = errorMessage(err).replace(/^(scenario: )?layerSwitch: /, "");
    throw new UsageError(`--layer-switch: ${why}`, undefined, { cause: err });
  }
}

/** `run`'s flags for the main keys. */
export function addRunKeyOptions(c: Command): Command {
  c.addOption(
    new Option("-n, --viewers <n>", "viewers (over the scenario's viewers)").argParser(
      intFlag("-n/--viewers", 1, 10_000),
    ),
  )
    .addOption(
      new Option("--ramp <duration>", "spread the starts over this long, e.g. 10s (rampSeconds)").argParser(
        durationFlag("--ramp"),
      ),
    )
    .addOption(
      new Option("--hold <duration>", "hold after the ramp, e.g. 1m (holdSeconds)").argParser(
        positiveDuration("--hold"),
      ),
    )
    .addOption(
      new Option(
        "--reference-viewers <n>",
        "libwebrtc viewers beside each cohort's viewers and the unimpaired ones, as the run's reference; not load (referenceViewers)",
      ).argParser(intFlag("--reference-viewers", 0, MAX_REFERENCE_VIEWERS)),
    )
    .addOption(
      new Option(
        "--simulcast [rids]",
        `publish simulcast layers: ${SIMULCAST_RIDS.join(",")} or a comma list of them (scenario key simulcast)`,
      )
        .preset(SIMULCAST_RIDS.join(","))
        .argParser(simulcastFlag),
    )
    .addOption(
      new Option(
        "--layer-switch <spec>",
        "viewers choose a simulcast layer through the WHEP layer extension: l, l:2s:h or :2s:h (layerSwitch)",
      ).argParser(layerSwitchFlag),
    );
  return endpointOptions(c);
}

/** `capacity`'s: the search sets viewers and the hold of each step, so neither is a flag here. */
export function addCapacityKeyOptions(c: Command): Command {
  c.addOption(
    new Option("--ramp <duration>", "spread each step's starts over this long (rampSeconds)").argParser(
      durationFlag("--ramp"),
    ),
  );
  return endpointOptions(c);
}
