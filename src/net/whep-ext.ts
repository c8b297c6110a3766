// The WHEP extensions' HTTP side for a viewer (docs/definitions.md#layer-switches): a JSON POST
// (the layer choice, the request for an event stream) and the first `layers` event of a
// server-sent-events stream. Nothing here names a URL in an error or a log line.

const MAX_EVENT_BYTES = 64 * 1024;

export interface ExtOptions {
  bearer?: string | undefined;
  /** ends every request (the viewer's stop, or a time limit) */
  signal: AbortSignal;
}

function headers(opts: ExtOptions, json: boolean): Record<string, string> {
  const h: Record<string, string> = json ? { "content-type": "application/json" } : {};
  if (opts.bearer) h["authorization"] = `Bearer ${opts.bearer}`;
  return h;
}

/** POST `body` as JSON; the status (0: no response) and the Location, resolved. */
export async function postJson(
  url: string,
  body: unknown,
  opts: ExtOptions,
): Promise<{ status: number; location: string | null }> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: headers(opts, true),
      body: JSON.stringify(body),
      signal: opts.signal,
      redirect: "manual",
    });
    await res.body?.cancel().catch(() => {});
    const loc = res.headers.get("location");
    return { status: res.status, location: loc === null ? null : new URL(loc, url).href };
  } catch {
    return { status: 0, location: null };
  }
}

/** The rids of the first `layers` event's first m-line: its `layers[].encodingId`; null when none came. */
export function layersOf(data: string): string[] | null {
  try {
    const parsed = JSON.parse(data) as Record<string, { layers?: { encodingId?: unknown }[] }>;
    const first = Object.values(parsed)[0];
    const rids = (first?.layers ?? []).map((l) => l.encodingId).filter((r) => typeof r === "string");
    return [...new Set(rids as string[])];
  } catch {
    return null;
  }
}

/**
 * Opens the event stream the server-sent-events URL gives (POST `["layers"]`, then GET its
 * Location) and reads up to the first `layers` event; its rids, or null (no stream, no such event
 * before the signal ends it, or more than 64 KiB before it).
 */
export async function firstLayersEvent(sseUrl: string, opts: ExtOptions): Promise<string[] | null> {
  const made = await postJson(sseUrl, ["layers"], opts);
  if (made.status !== 201 || made.location === null) return null;
  try {
    const res = await fetch(made.location, { headers: headers(opts, false), signal: opts.signal });
    const reader = res.body?.getReader();
    if (!res.ok || reader === undefined) return null;
    const dec = new TextDecoder();
    let text = "";
    try {
      while (text.length < MAX_EVENT_BYTES) {
        const { done, value } = await reader.read();
        if (done) return null;
        text += dec.decode(value, { stream: true });
        for (const block of text.split(/\r?\n\r?\n/).slice(0, -1)) {
          const lines = block.split(/\r?\n/);
          if (!lines.includes("event: layers")) continue;
          const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim());
          return layersOf(data.join("\n"));
        }
      }
      return null;
    } finally {
      await reader.cancel().catch(() => {});
    }
  } catch {
    return null;
  }
}
