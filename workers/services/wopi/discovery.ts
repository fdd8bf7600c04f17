import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";

/**
 * The office editor's WOPI discovery document (`/hosting/discovery`): which URL opens which file extension for which
 * action, and the proof keys the editor signs its requests with. Fetched from `WOPI_DISCOVERY_URL` and cached for an
 * hour per isolate (editors rotate proof keys rarely, and keep the old key valid meanwhile).
 */

export interface DiscoveryAction {
  /** the app element's name ("writer", "Word", or a MIME type for Collabora's per-type apps) */
  app: string;
  /** "view", "edit", "embedview" … */
  name: string;
  /** lower-case extension without the dot; "" for actions listed by MIME type */
  ext: string;
  urlsrc: string;
  favIconUrl: string | null;
}

/** An RSA public key of the editor, as `<proof-key>` publishes it: base64 modulus and exponent. */
export interface ProofKeyPair {
  current: { modulus: string; exponent: string } | null;
  old: { modulus: string; exponent: string } | null;
}

export interface Discovery {
  actions: DiscoveryAction[];
  proofKeys: ProofKeyPair;
}

/** How long a fetched discovery document is reused. */
export const DISCOVERY_TTL_MS = 3600 * 1000;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/g)) out[m[1]] = decodeEntities(m[3] ?? m[4] ?? "");
  return out;
}

/**
 * Parses a discovery document. Workers have no DOM parser; the document is flat and machine-written, so the elements
 * it needs (`app`, `action`, `proof-key`) are read with a tag scanner. Actions of the external net zones come first.
 */
export function parseDiscovery(xml: string): Discovery {
  const zones: { name: string; actions: DiscoveryAction[] }[] = [];
  let zone: { name: string; actions: DiscoveryAction[] } | null = null;
  let app = "";
  let favIconUrl: string | null = null;
  let proofKeys: ProofKeyPair = { current: null, old: null };
  for (const m of xml.matchAll(/<\s*(\/?)\s*([A-Za-z][\w:-]*)([^>]*)>/g)) {
    const closing = m[1] === "/";
    const name = m[2].toLowerCase();
    if (closing) continue;
    const attrs = attributes(m[3]);
    if (name === "net-zone") {
      zone = { name: attrs.name ?? "", actions: [] };
      zones.push(zone);
    } else if (name === "app") {
      app = attrs.name ?? "";
      favIconUrl = attrs.favIconUrl ?? null;
    } else if (name === "action" && attrs.urlsrc && attrs.name) {
      if (!zone) {
        zone = { name: "", actions: [] };
        zones.push(zone);
      }
      zone.actions.push({ app, name: attrs.name.toLowerCase(), ext: (attrs.ext ?? "").toLowerCase(), urlsrc: attrs.urlsrc, favIconUrl });
    } else if (name === "proof-key") {
      proofKeys = {
        current: attrs.modulus && attrs.exponent ? { modulus: attrs.modulus, exponent: attrs.exponent } : null,
        old: attrs.oldmodulus && attrs.oldexponent ? { modulus: attrs.oldmodulus, exponent: attrs.oldexponent } : null,
      };
    }
  }
  const rank = (z: { name: string }) => (z.name.startsWith("external") ? 0 : 1);
  zones.sort((a, b) => rank(a) - rank(b));
  return { actions: zones.flatMap((z) => z.actions), proofKeys };
}

const cache = new Map<string, { at: number; discovery: Promise<Discovery> }>();

/** Drops cached discovery documents (tests, and a key rotation seen as a failed proof). */
export function forgetDiscovery(url?: string): void {
  if (url) cache.delete(url);
  else cache.clear();
}

/**
 * The discovery document of the configured editor, cached for an hour; null when no editor is configured. An editor
 * that cannot be reached answers 503 (and is asked again on the next call).
 */
export async function loadDiscovery(url: string | undefined, now = Date.now()): Promise<Discovery | null> {
  if (!url) return null;
  const hit = cache.get(url);
  if (hit && now - hit.at < DISCOVERY_TTL_MS) return hit.discovery;
  const discovery = (async () => {
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: "application/xml, text/xml" } });
    } catch {
      throw new AppError("SERVICE_UNAVAILABLE", ru.wopi.discoveryFailed);
    }
    if (!res.ok) throw new AppError("SERVICE_UNAVAILABLE", ru.wopi.discoveryFailed);
    return parseDiscovery(await res.text());
  })();
  cache.set(url, { at: now, discovery });
  discovery.catch(() => cache.delete(url));
  return discovery;
}

/** The action for a file: by extension first, then by MIME type (Collabora lists some apps by type). */
export function findAction(d: Discovery, ext: string, mime: string, action: "view" | "edit"): DiscoveryAction | null {
  const e = ext.toLowerCase();
  const byExt = d.actions.filter((a) => a.ext === e && e !== "");
  const byMime = d.actions.filter((a) => a.app.toLowerCase() === mime.toLowerCase());
  for (const list of [byExt, byMime]) {
    const found = list.find((a) => a.name === action) ?? (action === "view" ? list.find((a) => a.name === "edit") : undefined);
    if (found) return found;
  }
  return null;
}

/**
 * The editor URL of an action: `urlsrc` with its optional `<name=PLACEHOLDER&>` parameters filled where we know the
 * value (Russian UI and dictionary) and dropped otherwise, then `WOPISrc`.
 */
export function actionUrl(urlsrc: string, wopiSrc: string, lang = "ru-RU"): string {
  const known: Record<string, string> = { UI_LLCC: lang, DC_LLCC: lang, DISABLE_CHAT: "1" };
  const filled = urlsrc.replace(/<([^=<>]+)=([^&<>]+)&?>/g, (_, name: string, placeholder: string) =>
    known[placeholder] ? `${name}=${encodeURIComponent(known[placeholder])}&` : "",
  );
  const sep = filled.endsWith("?") || filled.endsWith("&") ? "" : filled.includes("?") ? "&" : "?";
  return `${filled}${sep}WOPISrc=${encodeURIComponent(wopiSrc)}`;
}
