/**
 * What goes into a ZIP of a selection: every file the caller may download, folders recursively with their paths,
 * names made unique; what the caller may see but not download is listed for «ПРОПУЩЕНО.txt». What the caller cannot
 * see at all is left out silently (listed only by the id the caller gave), so the archive tells nothing about it.
 */
import { ru } from "../../../shared/i18n/ru";
import {
  selectZipAssets,
  selectZipFolders,
  selectZipMembers,
  selectZipVariants,
  type ZipMemberRow,
  type ZipMembersCursor,
  type ZipVariantRow,
} from "../../db/repositories/zip-selection.repository";
import { safeSegment, uniqueEntryPath } from "../../lib/zip-stream";
import { accessibleIds, type Actor, type RequestContext } from "../access";

/** Most ids (files plus folders) one request names. */
export const ZIP_MAX_IDS = 1000;
/** Files a ZIP answered in the request holds at most; a larger selection becomes an export task. */
export const ZIP_REQUEST_MAX_FILES = 10_000;
/** Bytes a ZIP answered in the request holds at most; a larger selection becomes an export task. */
export const ZIP_REQUEST_MAX_BYTES = 32 * 2 ** 30;
/** Files an export task's archive holds at most (Zip64 has no limit; this bounds one task's run). */
export const ZIP_TASK_MAX_FILES = 200_000;

/** ids are checked in slices: each slice is one bound JSON parameter of a D1 query. */
const SLICE = 500;
/**
 * Files of a folder listed per query: an answer of that many rows (some 200 bytes each) stays well within what one
 * call into a shard carries (32 MiB), which an export's 200,000 files would not.
 */
export const ZIP_MEMBERS_PAGE = 5_000;

export interface ZipSelection {
  assetIds: readonly string[];
  groupIds: readonly string[];
}

/** A file of the archive: the asset, its unique path, date and the size the listing knows (for the limits). */
export interface PlannedFile {
  assetId: string;
  path: string;
  mtime: number;
  size: number;
  /** its name and the folder it is taken from (none for a file chosen alone), for its download's audit entry */
  name: string;
  folderId: string | null;
}

export interface ZipPlan {
  files: PlannedFile[];
  /** lines of «ПРОПУЩЕНО.txt» */
  skipped: string[];
  bytes: number;
  /** more than `maxFiles` files: the plan stopped counting */
  overflow: boolean;
  /** the archive's name without ".zip": the folder's when one folder is chosen */
  name: string;
  /**
   * the files' ready variants, read with the plan where its library lives (decision 051); absent: looked up a slice
   * at a time as the archive streams
   */
  variants?: ZipVariantRow[];
}

function slices<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += SLICE) out.push(items.slice(i, i + SLICE));
  return out;
}

async function accessible(rc: RequestContext, actor: Actor, type: "asset" | "group", ids: readonly string[], level: "read" | "download") {
  const out = new Set<string>();
  for (const part of slices(ids)) for (const id of await accessibleIds(rc, actor, type, part, level)) out.add(id);
  return out;
}

/**
 * The plan of a selection's archive, checked as `actor`. `recursive: false` takes a folder's own files only (the
 * export task's historical option); the selection call is always recursive. A folder's files are listed
 * `membersPage` at a time.
 */
export async function planZip(
  rc: RequestContext,
  actor: Actor,
  selection: ZipSelection,
  maxFiles: number,
  options: { recursive?: boolean; membersPage?: number } = {},
): Promise<ZipPlan> {
  const recursive = options.recursive ?? true;
  const membersPage = options.membersPage ?? ZIP_MEMBERS_PAGE;
  const assetIds = [...new Set(selection.assetIds)];
  const groupIds = [...new Set(selection.groupIds)];
  const taken = new Set<string>();
  const plan: ZipPlan = { files: [], skipped: [], bytes: 0, overflow: false, name: ru.zip.defaultName };
  const add = (row: ZipMemberRow, dir: string) => {
    const path = uniqueEntryPath(dir, row.name, taken);
    plan.files.push({ assetId: row.id, path, mtime: row.mtime, size: row.size, name: row.name, folderId: row.group_id });
    plan.bytes += row.size;
  };

  // Files chosen one by one sit at the archive's top.
  const rows: ZipMemberRow[] = [];
  for (const part of slices(assetIds)) rows.push(...(await selectZipAssets(rc.db, part)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const readable = await accessible(rc, actor, "asset", [...byId.keys()], "read");
  const downloadable = await accessible(rc, actor, "asset", [...readable], "download");
  for (const id of assetIds) {
    const row = byId.get(id);
    if (!row || !readable.has(id)) plan.skipped.push(`${id} — ${ru.zip.notFound}`);
    else if (!downloadable.has(id)) plan.skipped.push(`${safeSegment(row.name)} — ${ru.zip.noDownloadRight}`);
    else add(row, "");
  }
  if (plan.files.length > maxFiles) return { ...plan, overflow: true };

  // Folders: each with its readable sub-folders; files keep their path below the chosen folder.
  const roots = await accessible(rc, actor, "group", groupIds, "read");
  for (const rootId of groupIds) {
    if (!roots.has(rootId)) {
      plan.skipped.push(`${rootId} — ${ru.zip.notFound}`);
      continue;
    }
    const all = await selectZipFolders(rc.db, rootId);
    const folders = recursive ? all : all.filter((f) => f.id === rootId);
    const visible = await accessible(rc, actor, "group", folders.map((f) => f.id), "read");
    const paths = new Map<string, string>();
    for (const f of folders) {
      // Shallowest first, so a parent's path is known; a folder under one the caller cannot open is left out.
      const parent = f.id === rootId ? "" : f.parent_id ? paths.get(f.parent_id) : undefined;
      if (!visible.has(f.id) || parent === undefined) continue;
      paths.set(f.id, uniqueEntryPath(parent, f.name, taken));
      if (f.id === rootId && groupIds.length === 1 && assetIds.length === 0) plan.name = safeSegment(f.name);
    }
    const members: ZipMemberRow[] = [];
    for (const part of slices([...paths.keys()])) {
      for (let after: ZipMembersCursor | null = null; ; ) {
        const wanted = Math.min(membersPage, maxFiles + 1 - plan.files.length - members.length);
        const page = await selectZipMembers(rc.db, part, wanted, after);
        members.push(...page);
        if (plan.files.length + members.length > maxFiles) return { ...plan, overflow: true };
        if (page.length < wanted) break;
        after = page[page.length - 1]!;
      }
    }
    const memberIds = [...new Set(members.map((m) => m.id))];
    const seen = await accessible(rc, actor, "asset", memberIds, "read");
    const allowed = await accessible(rc, actor, "asset", [...seen], "download");
    for (const m of members) {
      const dir = paths.get(m.group_id ?? "") ?? "";
      if (allowed.has(m.id)) add(m, dir);
      else if (seen.has(m.id)) plan.skipped.push(`${dir}/${safeSegment(m.name)} — ${ru.zip.noDownloadRight}`);
    }
  }
  return plan;
}

/**
 * The plan with its files' ready variants read now: for a plan made where its library lives (decision 051), whose
 * files' rows the catalog's lookup while streaming would read from its copy.
 */
export async function withVariants(rc: RequestContext, plan: ZipPlan): Promise<ZipPlan> {
  const ids = [...new Set(plan.files.map((f) => f.assetId))];
  const variants: ZipVariantRow[] = [];
  for (const part of slices(ids)) variants.push(...(await selectZipVariants(rc.db, part)));
  return { ...plan, variants };
}

/**
 * One archive of plans each made where its library lives (decision 051: a selection over several libraries is planned
 * per library, side by side): paths are made unique across them as one plan makes them — a top-level entry an earlier
 * plan took is renamed, with everything below it. The files' variants are carried when every plan carries them.
 */
export function mergeZipPlans(plans: readonly ZipPlan[], maxFiles: number): ZipPlan {
  if (plans.length === 1) return plans[0]!;
  const taken = new Set<string>();
  const merged: ZipPlan = { files: [], skipped: [], bytes: 0, overflow: false, name: ru.zip.defaultName };
  for (const plan of plans) {
    // Within one plan paths are unique already, so only a top-level entry can meet another plan's.
    const tops = new Map<string, string>();
    for (const file of plan.files) {
      const slash = file.path.indexOf("/");
      const top = slash < 0 ? file.path : file.path.slice(0, slash);
      let renamed = tops.get(top.toLowerCase());
      if (renamed === undefined) tops.set(top.toLowerCase(), (renamed = uniqueEntryPath("", top, taken)));
      merged.files.push({ ...file, path: slash < 0 ? renamed : `${renamed}${file.path.slice(slash)}` });
    }
    merged.skipped.push(...plan.skipped);
    merged.bytes += plan.bytes;
    merged.overflow ||= plan.overflow;
  }
  merged.overflow ||= merged.files.length > maxFiles;
  if (plans.every((plan) => plan.variants)) merged.variants = plans.flatMap((plan) => plan.variants!);
  return merged;
}
