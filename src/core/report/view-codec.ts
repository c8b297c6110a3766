// The codec a `view` reports (docs/definitions.md#view): it publishes nothing, so its scenario's
// codec is what its viewers negotiated, not the scenario default it never offered alone.
import type { Scenario } from "../scenario/types.ts";

/** The viewers' negotiated codecs as one: the codec when all agree, "mixed" when not, undefined with none. */
export function negotiatedCodec(codecs: ReadonlyArray<string | undefined>): string | undefined {
  const seen = new Set(codecs.filter((c): c is string => c !== undefined && c !== ""));
  if (seen.size > 1) return "mixed";
  return seen.values().next().value;
}

/** A view's scenario with the codec its viewers negotiated (absent when none negotiated a track). */
export function viewScenario(s: Scenario, codecs: ReadonlyArray<string | undefined>): Scenario {
  const { codec: _default, ...rest } = s;
  const codec = negotiatedCodec(codecs);
  return codec === undefined ? rest : { ...rest, codec };
}
