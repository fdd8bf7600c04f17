import { ApiError } from "./api-error";
import { apiRequest } from "./api-client";
import { playLink } from "./library-api";
import { ru } from "../i18n/ru";
import { announceHealed } from "./heal-events";

/**
 * Heal on view for playback (decision 029, «The proxy maker»): a video this browser's `<video>` refuses (MPEG-TS and
 * AVCHD, some MOV and MKV) is converted here into a small WebM/MP4 and stored as the version's `proxy_lowres` with
 * `POST /api/asset/upload-proxy/{id}?heal=true` — `read` suffices, the first proxy wins (409 afterwards) — then
 * played at once. A viewer without `update` stores it for himself alone until someone with `update` accepts it
 * («Who sees a heal»): the server answers its play link, and his next view plays it without converting again.
 * The converter (mediabunny) is loaded only now, by a dynamic import.
 */

export type ProxyState =
  | { phase: "converting"; percent: number | null }
  | { phase: "uploading" }
  /** `variantId`: the stored proxy (null when it could not be stored and a local copy plays) */
  | { phase: "ready"; link: string; variantId: string | null; mime: string; pending?: boolean }
  | { phase: "failed"; reason: string };

export interface ProxyTarget {
  assetId: string;
  version: number;
  /** the original's signed play link (Range reads: only what the converter needs travels) */
  sourceLink: string;
}

interface Job {
  state: ProxyState;
  listeners: Set<(state: ProxyState) => void>;
}

/** One conversion per version and tab: a remounted player follows the running one instead of starting again. */
const jobs = new Map<string, Job>();
/** One conversion at a time in this tab: each takes the CPU (and the encoder) for a while. */
let chain: Promise<unknown> = Promise.resolve();

/** The version's stored proxy, when another browser stored one first (the heal answered 409). */
async function existingProxy(assetId: string, version: number): Promise<string | null> {
  const rows = await apiRequest<{ variant_id: string; variant_type: string; mime_type: string }[]>(
    `/api/asset/variants/${assetId}/${version}`,
    {
      toast: false,
    },
  );
  return rows.find((r) => r.variant_type === "proxy_lowres" && r.mime_type.startsWith("video/"))?.variant_id ?? null;
}

/** This user's own proxy of the version awaiting acceptance (play answers it to him alone), if he made one. */
async function ownPendingProxy(target: ProxyTarget): Promise<{ link: string; variantId: string } | null> {
  try {
    // Asked first, so a viewer without one makes no failing request (a 404 in the console on every conversion).
    const state = await apiRequest<{ pending: { kind: string; mine: boolean }[] }>(`/api/asset/heal/${target.assetId}/${target.version}`, {
      toast: false,
    });
    if (!state.pending.some((p) => p.kind === "proxy" && p.mine)) return null;
    const { link } = await apiRequest<{ link: string }>(`/api/asset/content/play/${target.assetId}`, {
      method: "POST",
      body: { version: target.version, variant_type: "proxy_lowres" },
      toast: false,
    });
    const id = /\/content\/stream\/([0-9a-f]{32})/.exec(link)?.[1];
    return id ? { link, variantId: id } : null;
  } catch {
    return null;
  }
}

async function run(target: ProxyTarget, set: (state: ProxyState) => void): Promise<void> {
  set({ phase: "converting", percent: null });
  const own = await ownPendingProxy(target);
  if (own) return set({ phase: "ready", link: own.link, variantId: own.variantId, mime: "video/webm", pending: true });
  const { makeVideoProxy } = await import("./video-proxy.client");
  let last = -1;
  const made = await makeVideoProxy(target.sourceLink, (fraction) => {
    const percent = Math.floor(fraction * 100);
    if (percent !== last) set({ phase: "converting", percent: (last = percent) });
  });
  if (!made.ok) return set({ phase: "failed", reason: made.reason });
  set({ phase: "uploading" });
  let variantId: string | null = null;
  try {
    const stored = await apiRequest<{ variant_id: string; pending?: boolean; link?: string }>(`/api/asset/upload-proxy/${target.assetId}`, {
      method: "POST",
      body: made.blob,
      query: { version: target.version, heal: "true" },
      toast: false,
    });
    announceHealed(target.assetId);
    // Stored for this viewer alone until accepted: played through the link signed for him.
    if (stored.pending && stored.link) return set({ phase: "ready", link: stored.link, variantId: stored.variant_id, mime: made.mime, pending: true });
    variantId = stored.variant_id;
  } catch (error) {
    // Someone was first: play theirs. Anything else (a limit, the network): play what was made here, unsaved.
    if (error instanceof ApiError && error.status === 409)
      variantId = await existingProxy(target.assetId, target.version).catch(() => null);
    else console.warn("video proxy not stored", error);
  }
  if (variantId) {
    const { link } = await playLink(variantId, target.assetId);
    return set({ phase: "ready", link, variantId, mime: made.mime });
  }
  set({ phase: "ready", link: URL.createObjectURL(made.blob), variantId: null, mime: made.mime });
}

/**
 * Follows the proxy of `target`, making it when this tab has not tried yet; `onState` gets the current state at
 * once and every change after. Answers the unsubscribe function (the conversion itself goes on).
 */
export function followVideoProxy(target: ProxyTarget, onState: (state: ProxyState) => void): () => void {
  const key = `${target.assetId}:${target.version}`;
  let job = jobs.get(key);
  if (!job) {
    const fresh: Job = { state: { phase: "converting", percent: null }, listeners: new Set() };
    job = fresh;
    jobs.set(key, fresh);
    const set = (state: ProxyState) => {
      fresh.state = state;
      for (const listener of fresh.listeners) listener(state);
    };
    const go = () =>
      run(target, set).catch((error: unknown) => {
        console.warn("video proxy failed", error);
        set({ phase: "failed", reason: ru.library.videoProxy.failed });
      });
    chain = chain.then(go, go);
  }
  job.listeners.add(onState);
  onState(job.state);
  const current = job;
  return () => void current.listeners.delete(onState);
}
