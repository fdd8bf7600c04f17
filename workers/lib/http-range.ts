/**
 * HTTP byte ranges and conditional requests for downloads and media streaming (RFC 9110 §14, §13). Pure functions:
 * the content service decides the answer from these before it touches storage.
 */

/** What a `Range` header asks for, judged against the object's size. */
export type RangeRequest =
  /** no Range header, or one the server may ignore (several ranges): answer 200 with the whole object */
  | { kind: "none" }
  /** one satisfiable range: answer 206 with `Content-Range: bytes offset-end/size` */
  | { kind: "range"; offset: number; length: number; end: number }
  /** malformed or not satisfiable: answer 416 with `Content-Range: bytes *\/size` */
  | { kind: "unsatisfiable" };

const RANGE_HEADER = /^bytes[ \t]*=[ \t]*(.*)$/i;
const RANGE_SPEC = /^(\d*)[ \t]*-[ \t]*(\d*)$/;

/** A decimal position; numbers beyond 2^53 become Infinity (they lie past any object we store). */
function position(digits: string): number {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : Number.POSITIVE_INFINITY;
}

type Spec = { first: number | null; last: number | null };

function parseSpec(text: string): Spec | null {
  const m = RANGE_SPEC.exec(text.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  const first = m[1] === "" ? null : position(m[1]);
  const last = m[2] === "" ? null : position(m[2]);
  if (first !== null && last !== null && last < first) return null;
  return { first, last };
}

/**
 * Parses `Range: bytes=a-b`, `bytes=a-` and `bytes=-n` for an object of `size` bytes. Anything else that claims to
 * be a range (another unit, garbage, `b < a`) is treated as unsatisfiable, as is a range starting at or past the
 * end. A list of several well-formed ranges is answered with the whole object (RFC 9110 allows ignoring Range),
 * which keeps the server free of multipart/byteranges bodies.
 * @example parseRange("bytes=0-99", 1000) // { kind: "range", offset: 0, length: 100, end: 99 }
 * @example parseRange("bytes=-100", 1000) // { kind: "range", offset: 900, length: 100, end: 999 }
 */
export function parseRange(header: string | null | undefined, size: number): RangeRequest {
  if (header == null || header.trim() === "") return { kind: "none" };
  const m = RANGE_HEADER.exec(header.trim());
  if (!m) return { kind: "unsatisfiable" };
  const specs = m[1].split(",").map(parseSpec);
  if (specs.some((s) => s === null)) return { kind: "unsatisfiable" };
  if (specs.length > 1) return { kind: "none" };
  const { first, last } = specs[0] as Spec;
  if (size <= 0) return { kind: "unsatisfiable" };
  let offset: number;
  let end: number;
  if (first === null) {
    // Suffix range: the last `last` bytes (all of them when the object is shorter).
    if (last === null || last === 0) return { kind: "unsatisfiable" };
    offset = Math.max(0, size - last);
    end = size - 1;
  } else {
    if (first >= size) return { kind: "unsatisfiable" };
    offset = first;
    end = last === null ? size - 1 : Math.min(last, size - 1);
  }
  return { kind: "range", offset, length: end - offset + 1, end };
}

/** `Content-Range` of a 206 answer. */
export function contentRange(offset: number, end: number, size: number): string {
  return `bytes ${offset}-${end}/${size}`;
}

/** `Content-Range` of a 416 answer. */
export function unsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}

/** Entity tags listed in an `If-None-Match` / `If-Range` header value, weak prefixes removed; `*` kept as is. */
function entityTags(header: string): string[] {
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .filter(Boolean);
}

/**
 * Whether `If-None-Match` matches the current `etag` (weak comparison, RFC 9110 §13.1.2): then a GET answers 304.
 * @example ifNoneMatch('W/"abc", "def"', '"def"') // true
 */
export function ifNoneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const tags = entityTags(header);
  return tags.includes("*") || tags.includes(etag.replace(/^W\//, ""));
}

/**
 * Whether a Range may be honoured under `If-Range` (RFC 9110 §13.1.5): yes without the header, when it holds the
 * current strong `etag`, or an HTTP date equal to `lastModifiedMs` (second precision). Otherwise the whole object is
 * sent, because the client's partial copy is stale.
 */
export function ifRangeAllows(header: string | null | undefined, etag: string, lastModifiedMs: number): boolean {
  if (!header) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return !value.startsWith("W/") && value === etag;
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(date / 1000) === Math.floor(lastModifiedMs / 1000);
}
