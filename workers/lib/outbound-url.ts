/**
 * Which addresses the Worker may be told to call: an automation's webhook and an S3-compatible storage's endpoint.
 * http(s) only, never a private, loopback, link-local, metadata (169.254.169.254) or other non-public address (a
 * setting must not become a way to reach the operator's internal network). Hostnames are
 * judged by name; a public name that resolves to a private address cannot be caught here, which is why the call is
 * also made with `redirect: "manual"` and, on Cloudflare, cannot reach private networks anyway.
 */

export interface OutboundUrlPolicy {
  /** allow loopback addresses (127.0.0.0/8, ::1, localhost): only for local tests, by explicit configuration */
  allowLoopback: boolean;
}

type AddressKind = "public" | "loopback" | "private";

function ipv4Kind(parts: number[]): AddressKind {
  const [a, b] = parts;
  if (a === 127) return "loopback";
  if (a === 0 || a === 10 || a >= 224) return "private";
  if (a === 100 && b >= 64 && b <= 127) return "private"; // carrier-grade NAT
  if (a === 169 && b === 254) return "private"; // link-local
  if (a === 172 && b >= 16 && b <= 31) return "private";
  if (a === 192 && b === 168) return "private";
  if (a === 192 && b === 0 && parts[2] === 0) return "private";
  if (a === 198 && (b === 18 || b === 19)) return "private"; // benchmarking
  return "public";
}

function parseIpv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/**
 * Expands an IPv6 literal to eight 16-bit groups. Only the URL parser's own output is parsed here, which is always
 * hex groups with at most one `::` (a dotted IPv4 tail is rewritten to hex by the parser).
 */
function parseIpv6(host: string): number[] | null {
  const [head, rest, extra] = host.split("::");
  if (extra !== undefined) return null;
  const toGroups = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const left = toGroups(head);
  const right = rest === undefined ? [] : toGroups(rest);
  if ([...left, ...right].some(Number.isNaN)) return null;
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 0) return null;
  return [...left, ...Array<number>(missing).fill(0), ...right];
}

function ipv6Kind(g: number[]): AddressKind {
  const allZeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (allZeroUntil(7) && g[7] === 1) return "loopback";
  if (allZeroUntil(8)) return "private";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address.
  const embedded = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
  if (allZeroUntil(5) && (g[5] === 0xffff || g[5] === 0)) return ipv4Kind(embedded);
  // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765): another spelling of an IPv4 address.
  if (allZeroUntil(4) && g[4] === 0xffff && g[5] === 0) return ipv4Kind(embedded);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4Kind(embedded);
  // Local-use NAT64 (64:ff9b:1::/48, RFC 8215): translated inside the operator's own network.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private";
  // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits, which a 6to4 relay delivers to.
  if (g[0] === 0x2002) return ipv4Kind([g[1] >> 8, g[1] & 0xff, g[2] >> 8, g[2] & 0xff]);
  // Teredo (2001::/32) tunnels to a client address stored inverted; there is no public service to reach through it.
  if (g[0] === 0x2001 && g[1] === 0) return "private";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "private"; // documentation
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return "private"; // discard
  if ((g[0] & 0xfe00) === 0xfc00) return "private"; // unique local
  if ((g[0] & 0xffc0) === 0xfe80) return "private"; // link-local
  if ((g[0] & 0xffc0) === 0xfec0) return "private"; // site-local (deprecated, still routed inside some networks)
  if ((g[0] & 0xff00) === 0xff00) return "private"; // multicast
  return "public";
}

const PRIVATE_SUFFIXES = [".local", ".internal", ".lan", ".home.arpa", ".intranet", ".corp"];

function hostKind(hostname: string): AddressKind {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups ? ipv6Kind(groups) : "private";
  }
  const v4 = parseIpv4(host);
  if (v4) return ipv4Kind(v4);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  // A single-label name resolves only on a local network.
  if (!host.includes(".")) return "private";
  if (PRIVATE_SUFFIXES.some((s) => host.endsWith(s))) return "private";
  return "public";
}

/**
 * Why an address is refused (Russian, for a 400 or a log line), or null when it may be called.
 * @example outboundUrlProblem("ftp://example.com/", { allowLoopback: false }) // "адрес должен начинаться с http:// или https://"
 */
export function outboundUrlProblem(value: string, policy: OutboundUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "это не адрес URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "адрес должен начинаться с http:// или https://";
  if (url.username || url.password) return "адрес не может содержать логин и пароль";
  const kind = hostKind(url.hostname);
  if (kind === "private") return "адрес указывает на частную или служебную сеть";
  if (kind === "loopback" && !policy.allowLoopback) return "адрес указывает на локальный компьютер (loopback)";
  return null;
}

/** Lowercase words of length `n` other than `words`, as a regular expression source (no lookahead: generators need none). */
function lettersExcept(words: readonly string[], n: number): string | null {
  if (words.length === 0) return n === 0 ? "" : `[a-z]{${n}}`;
  if (n === 0) return null;
  const firsts = [...new Set(words.map((w) => w[0]))].sort();
  const others = [..."abcdefghijklmnopqrstuvwxyz"].filter((c) => !firsts.includes(c)).join("");
  const tail = n === 1 ? "" : n === 2 ? "[a-z]" : `[a-z]{${n - 1}}`;
  const branches = others ? [`[${others}]${tail}`] : [];
  for (const c of firsts) {
    const rest = lettersExcept(words.filter((w) => w[0] === c).map((w) => w.slice(1)), n - 1);
    if (rest !== null) branches.push(`${c}${rest}`);
  }
  return branches.length === 0 ? null : `(?:${branches.join("|")})`;
}

/** Top-level names that are never public: the suffixes above (and `arpa`, which only `home.arpa` would use). */
const PRIVATE_TOP_LEVEL = ["local", "internal", "lan", "arpa", "intranet", "corp", "localhost"];

/**
 * What the document promises `outboundUrlProblem` accepts, as a JSON Schema pattern: an http(s) address of a public
 * host name (labels of letters, digits and single hyphens; a top-level name of letters, none of the private ones),
 * an optional port 1–9999 and a plain path, without credentials, query or fragment. The product takes more (IP
 * addresses, other ports, queries for webhooks); every address this matches it takes.
 */
export const PUBLIC_HTTP_URL_PATTERN = (() => {
  const topLevel: string[] = [];
  for (let n = 2; n <= 24; n++) {
    const words = PRIVATE_TOP_LEVEL.filter((w) => w.length === n);
    topLevel.push(lettersExcept(words, n) ?? "");
  }
  const label = "[a-z0-9]+(?:-[a-z0-9]+)*";
  return `^https?://(?:${label}\\.)+(?:${topLevel.filter(Boolean).join("|")})(?::[1-9][0-9]{0,3})?(?:/[A-Za-z0-9._~-]*)*$`;
})();
