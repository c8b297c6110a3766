// A viewer's layer choice (docs/definitions.md#layer-switches): with the scenario's `layerSwitch`,
// through the WHEP layer extension when the answer offers it. The viewer asks for `startRid` at
// once and for `rid` `atSeconds` after its WHEP POST, each a POST of `{"mediaId": "0",
// "encodingId": <rid>}` to the layer URL; the `layers` event (when the server offers the event
// stream) names the layers the switch may ask for. The record pairs the asks with the viewer's
// stays on layers (switch figures).

import { monoNs } from "../../core/clock/clock.ts";
import { type LayerAsk, type LayerChoiceRecord, layerSwitches } from "../../core/delay/layer-switches.ts";
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";
import type { LayerSwitchSpec } from "../../core/layer/layer-switch.ts";
import { linkRels, WHEP_LAYER_REL, WHEP_SSE_REL } from "../../core/wire/link-header.ts";
import { firstLayersEvent, postJson } from "../../net/whep-ext.ts";

/** How long a viewer waits for the `layers` event before it asks anyway. */
const LAYERS_EVENT_WAIT_MS = 3000;

export class LayerDriver {
  readonly asks: LayerAsk[] = [];
  /** why the choice was unavailable; null: the server offered the extension */
  reason: string | null = null;
  private readonly ended = new AbortController();
  private readonly running: Promise<void>;
  /** settles when the start ask is answered (or failed); at once without a start layer */
  readonly started: Promise<void>;
  private startDone: () => void = () => {};

  /**
   * Starts at the WHEP answer: `links` its Link header values, `endpoint` the WHEP URL they are
   * relative to, `postNs` the POST instant the switch time counts from.
   */
  constructor(
    spec: LayerSwitchSpec,
    links: string | null,
    endpoint: string,
    postNs: number,
    opts: { bearer: string | undefined; stop: AbortSignal },
  ) {
    this.started = new Promise<void>((resolve) => {
      this.startDone = resolve;
    });
    const signal = AbortSignal.any([opts.stop, this.ended.signal]);
    const rels = linkRels(links, endpoint);
    const layerUrl = rels.get(WHEP_LAYER_REL);
    if (layerUrl === undefined) {
      this.reason = "the server offered no layer extension";
      this.running = Promise.resolve();
      this.startDone();
      return;
    }
    this.running = this.drive(spec, layerUrl, rels.get(WHEP_SSE_REL), postNs, opts.bearer, signal).finally(
      () => this.startDone(),
    );
  }

  private async drive(
    spec: LayerSwitchSpec,
    layerUrl: string,
    sseUrl: string | undefined,
    postNs: number,
    bearer: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const ask = async (rid: string, offered: string[] | null): Promise<void> => {
      const at: LayerAsk = { rid, atNs: monoNs(), status: 0 };
      this.asks.push(at);
      if (offered !== null && !offered.includes(rid)) {
        at.error = "the server's layers event does not name this layer";
        return;
      }
      at.status = (await postJson(layerUrl, { mediaId: "0", encodingId: rid }, { bearer, signal })).status;
      if (at.status === 0) at.error = "no answer";
    };
    // the start layer is asked for at once, beside the event stream, and the viewer applies the
    // WHEP answer once it is answered (`started`): a choice after the first frames would be a
    // switch, not a start
    const wait = AbortSignal.any([signal, AbortSignal.timeout(LAYERS_EVENT_WAIT_MS)]);
    const [offered] = await Promise.all([
      sseUrl !== undefined ? firstLayersEvent(sseUrl, { bearer, signal: wait }) : null,
      (spec.startRid !== undefined ? ask(spec.startRid, null) : Promise.resolve()).finally(() =>
        this.startDone(),
      ),
    ]);
    if (spec.rid === undefined || spec.atSeconds === undefined) return;
    // a timer may fire a little early on the monotonic clock: wait until the instant is reached
    const dueNs = postNs + spec.atSeconds * 1e9;
    for (let now = monoNs(); now < dueNs; now = monoNs())
      if (!(await sleep(Math.ceil((dueNs - now) / 1e6), signal))) return;
    await ask(spec.rid, offered);
  }

  /** Ends what is still under way (the viewer's end) and waits for it. */
  async end(): Promise<void> {
    this.ended.abort();
    await this.running.catch(() => {});
  }

  /** The record: the asks and, from the viewer's stays on layers, its switches. */
  record(pipeline: ViewerPipeline | null, rids: readonly string[], ticks: number): LayerChoiceRecord {
    const stays = pipeline?.fingerprint?.stays?.list() ?? [];
    const out: LayerChoiceRecord = {
      asks: this.asks.map((a) => ({ ...a })),
      switches: layerSwitches(stays, this.asks, rids, ticks),
    };
    if (this.reason !== null) out.reason = this.reason;
    return out;
  }
}

/** Resolves true after `ms`, false as soon as `signal` aborts (the timer is cleared). */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const t = setTimeout(
      () => {
        signal.removeEventListener("abort", stop);
        resolve(true);
      },
      Math.max(0, ms),
    );
    const stop = (): void => {
      clearTimeout(t);
      resolve(false);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
