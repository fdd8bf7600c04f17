import { ru } from "../../../shared/i18n/ru";
import {
  allPictureHashes,
  currentHashesOf,
  filesWithHashes,
  groupNames,
  pictureCandidates,
  sharedHashes,
  type DuplicateRow,
  type PhashRow,
} from "../../db/repositories/duplicates.repository";
import { findAsset } from "../../db/repositories/asset.repository";
import { AppError } from "../../lib/errors";
import { accessibleIds, requireAdmin, requireEntityAccess, visibility, type Actor, type RequestContext } from "../access";
import { NEAR_DISTANCE, hammingDistance, phashBands, phashOfHalves } from "../imaging/pure";
import { previewsByAssets } from "../media";

/** Files answered per list (exact or similar) of one file, and per hash of a lookup. */
export const MAX_DUPLICATES = 50;
/** Hashes one lookup may ask about (an upload batch is checked in slices of this size). */
export const MAX_LOOKUP_HASHES = 100;
/** Candidates of a near search read from the band indexes before the distance is counted. */
const MAX_CANDIDATES = 5000;
/** Groups per page of the administrators' list. */
export const DUPLICATE_GROUPS_PER_PAGE = 50;
/** Pictures the administrators' «similar» list compares in one request (the oldest first). */
export const MAX_SIMILAR_SCAN = 20_000;
/** Hash comparisons of one clustering (pictures sharing a band are compared pairwise). */
const MAX_COMPARISONS = 2_000_000;

/** A file of a duplicate list; `folder` only when the caller may read it, `distance` for near pictures. */
export interface DuplicateFile {
  asset_id: string;
  name: string;
  mime: string;
  size: number;
  version: number;
  folder: { id: string; name: string } | null;
  preview: string | null;
  distance?: number;
}

/** Rows as the API answers them: folder names the caller may read and preview links (both one query each). */
async function describe(rc: RequestContext, actor: Actor, rows: readonly (DuplicateRow & { distance?: number })[]): Promise<DuplicateFile[]> {
  if (rows.length === 0) return [];
  const groupIds = [...new Set(rows.map((r) => r.group_id).filter((id): id is string => id !== null))];
  const readable = groupIds.length > 0 ? await accessibleIds(rc, actor, "group", groupIds) : new Set<string>();
  const names = new Map((await groupNames(rc.db, [...readable])).map((g) => [g.id, g.name]));
  const previews = new Map((await previewsByAssets(rc, actor, rows.map((r) => r.asset_id))).map((p) => [p.asset_id, p.preview]));
  return rows.map((r) => ({
    asset_id: r.asset_id,
    name: r.name,
    mime: r.mime,
    size: r.size,
    version: r.version,
    folder: r.group_id && names.has(r.group_id) ? { id: r.group_id, name: names.get(r.group_id)! } : null,
    preview: previews.get(r.asset_id) ?? null,
    ...(r.distance === undefined ? {} : { distance: r.distance }),
  }));
}

/** Near pictures of a hash among the candidates, nearest first, without the files already listed as exact. */
function nearest(hash: bigint, candidates: readonly PhashRow[], exact: ReadonlySet<string>): (PhashRow & { distance: number })[] {
  const seen = new Set<string>();
  const out: (PhashRow & { distance: number })[] = [];
  for (const c of candidates) {
    if (exact.has(c.asset_id) || seen.has(c.asset_id)) continue;
    const distance = hammingDistance(hash, phashOfHalves(c.hi, c.lo));
    if (distance > NEAR_DISTANCE) continue;
    seen.add(c.asset_id);
    out.push({ ...c, distance });
  }
  return out.sort((a, b) => a.distance - b.distance || a.ctime - b.ctime).slice(0, MAX_DUPLICATES);
}

/**
 * GET /api/asset/duplicates/{id}: the other files with the same bytes (SHA-256 of the current version) and the
 * pictures whose preview is near (difference hash at most NEAR_DISTANCE bits apart), only among files the caller may
 * read. The caller needs read on the file itself (404 otherwise, the same as for an unknown id).
 */
export async function assetDuplicates(rc: RequestContext, actor: Actor, assetId: string): Promise<{ exact: DuplicateFile[]; similar: DuplicateFile[] }> {
  const asset = await findAsset(rc.db, assetId);
  if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
  await requireEntityAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read", ru.assets.notFound);
  const vis = await visibility(rc, actor);
  const current = await currentHashesOf(rc.db, assetId);
  const hashes = [...new Set(current.map((c) => c.sha256).filter((h): h is string => h !== null))];
  const exact = await filesWithHashes(rc.db, hashes, vis, assetId, MAX_DUPLICATES);
  const picture = current.find((c) => c.hi !== null && c.lo !== null);
  let similar: (PhashRow & { distance: number })[] = [];
  if (picture) {
    const hash = phashOfHalves(picture.hi!, picture.lo!);
    const candidates = await pictureCandidates(rc.db, phashBands(hash), vis, assetId, MAX_CANDIDATES);
    similar = nearest(hash, candidates, new Set(exact.map((e) => e.asset_id)));
  }
  return { exact: await describe(rc, actor, exact), similar: await describe(rc, actor, similar) };
}

/**
 * POST /api/asset/duplicate-lookup: for each SHA-256 the client computed before uploading, the files with those
 * bytes that the caller may read (a hash nobody readable holds answers nothing: the call is no oracle for others'
 * files). Hashes are lower-cased hex, at most MAX_LOOKUP_HASHES.
 */
export async function lookupHashes(rc: RequestContext, actor: Actor, sha256: readonly string[]): Promise<{ matches: { sha256: string; files: DuplicateFile[] }[] }> {
  const hashes = [...new Set(sha256.map((h) => h.toLowerCase()))];
  const rows = await filesWithHashes(rc.db, hashes, await visibility(rc, actor), null, MAX_DUPLICATES * hashes.length);
  const files = new Map((await describe(rc, actor, rows)).map((f) => [f.asset_id, f]));
  const matches: { sha256: string; files: DuplicateFile[] }[] = [];
  for (const hash of hashes) {
    const of = rows.filter((r) => r.sha256 === hash).slice(0, MAX_DUPLICATES);
    if (of.length > 0) matches.push({ sha256: hash, files: of.map((r) => files.get(r.asset_id)!) });
  }
  return { matches };
}

/** One group of the administrators' list: the files, oldest first (the one a keep-one action suggests keeping). */
export interface DuplicateGroup {
  key: string;
  kind: "exact" | "similar";
  files: DuplicateFile[];
}

/**
 * GET /api/duplicates (administrators): the library's duplicate groups. `exact`: files sharing a SHA-256, a page of
 * DUPLICATE_GROUPS_PER_PAGE hashes after `after` (answers `next`, the cursor of the following page). `similar`:
 * pictures within NEAR_DISTANCE bits, clustered (single link) over the oldest MAX_SIMILAR_SCAN pictures; groups
 * whose files all share one SHA-256 are left to the exact list.
 */
export async function libraryDuplicates(
  rc: RequestContext,
  actor: Actor,
  query: { kind: "exact" | "similar"; after?: string },
): Promise<{ groups: DuplicateGroup[]; next: string | null; scanned?: number }> {
  requireAdmin(actor);
  if (query.kind === "exact") {
    const shared = await sharedHashes(rc.db, query.after ?? "", DUPLICATE_GROUPS_PER_PAGE);
    const rows = await filesWithHashes(rc.db, shared.map((s) => s.sha256), null, null, DUPLICATE_GROUPS_PER_PAGE * MAX_DUPLICATES);
    const files = new Map((await describe(rc, actor, rows)).map((f) => [f.asset_id, f]));
    const groups = shared.map((s) => ({
      key: s.sha256,
      kind: "exact" as const,
      files: rows.filter((r) => r.sha256 === s.sha256).map((r) => files.get(r.asset_id)!),
    }));
    return { groups, next: shared.length === DUPLICATE_GROUPS_PER_PAGE ? shared[shared.length - 1].sha256 : null };
  }
  const pictures = await allPictureHashes(rc.db, MAX_SIMILAR_SCAN);
  const clusters = clusterNear(pictures.map((p) => phashOfHalves(p.hi, p.lo)));
  const groups: DuplicateGroup[] = [];
  for (const members of clusters) {
    const rows = members.map((i) => pictures[i]);
    if (new Set(rows.map((r) => r.sha256)).size === 1) continue;
    if (groups.length >= DUPLICATE_GROUPS_PER_PAGE) break;
    groups.push({ key: rows[0].asset_id, kind: "similar", files: await describe(rc, actor, rows) });
  }
  return { groups, next: null, scanned: pictures.length };
}

/**
 * Single-link clusters of hashes within NEAR_DISTANCE bits (index lists, in input order, only clusters of two or
 * more). Pairs are found through the same seven bands as the database search: only hashes sharing a band are compared.
 */
export function clusterNear(hashes: readonly bigint[]): number[][] {
  const parent = hashes.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const buckets = new Map<string, number[]>();
  hashes.forEach((h, i) => {
    phashBands(h).forEach((value, band) => {
      const key = `${band}:${value}`;
      const list = buckets.get(key);
      if (list) list.push(i);
      else buckets.set(key, [i]);
    });
  });
  // Many blank or same-template pictures share a band: the pairwise work is capped, whatever the library holds.
  let comparisons = 0;
  compare: for (const list of buckets.values()) {
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length; b++) {
        if (++comparisons > MAX_COMPARISONS) break compare;
        const [i, j] = [list[a], list[b]];
        if (root(i) !== root(j) && hammingDistance(hashes[i], hashes[j]) <= NEAR_DISTANCE) parent[root(i)] = root(j);
      }
    }
  }
  const groups = new Map<number, number[]>();
  hashes.forEach((_, i) => {
    const r = root(i);
    const list = groups.get(r);
    if (list) list.push(i);
    else groups.set(r, [i]);
  });
  return [...groups.values()].filter((g) => g.length > 1);
}
