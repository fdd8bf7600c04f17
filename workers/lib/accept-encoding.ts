/**
 * Whether an `Accept-Encoding` header accepts gzip (RFC 9110 §12.5.3): listed as `gzip`, `x-gzip` or `*`, with a
 * q-value above zero. Anything malformed counts as not accepted, so a client always gets a body it can read.
 * @example acceptsGzip("br;q=1.0, gzip;q=0.8") // true
 */
export function acceptsGzip(header: string | undefined | null): boolean {
  if (!header) return false;
  let wildcard = false;
  for (const part of header.split(",")) {
    const [token, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const accepted = Number.isFinite(q) && q > 0;
    if (token === "gzip" || token === "x-gzip") return accepted;
    if (token === "*") wildcard = accepted;
  }
  return wildcard;
}
