/**
 * Metadata CSV export (decision record 009, «CSV in and out»): one row per readable file with its field values, as a
 * stream, so 50,000 files never sit in memory. The writer works over pages of asset ids (`AssetIdPages`); a folder and
 * a search are the two sources today, and any other list of ids (a collection) plugs in as another source.
 */
import { ru } from "../../../shared/i18n/ru";
import { listTemplateRows } from "../../db/repositories/field.repository";
import { csvAssets, folderChains, liveGroup, subtreeAssetIdsPage, untimedValuesOf } from "../../db/repositories/metadata-csv.repository";
import type { FieldTemplateRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { accessibleIds, requireEntityAccess } from "../access";
import type { Actor, RequestContext } from "../access";
import { CSV_BOM, FIXED_COLUMNS, csvRow, valuesToCell } from "./csv-format";

/** Pages of candidate asset ids; the writer itself keeps only those the caller may read. */
export type AssetIdPages = AsyncIterable<readonly string[]>;

/** Files per page: one query each for rights, names, paths and values. */
export const CSV_PAGE = 500;
/** Most files one export writes (the bench's 50,000 and room to spare); the loop over pages stops there. */
export const MAX_EXPORT_FILES = 100_000;
/** Field columns at most (templates in form order). */
export const MAX_CSV_FIELDS = 500;

/** The files of a folder and its subfolders, by id, in pages. */
export async function* folderAssetPages(rc: RequestContext, groupId: string): AssetIdPages {
  let after = "";
  for (let seen = 0; seen < MAX_EXPORT_FILES; ) {
    const ids = await subtreeAssetIdsPage(rc.db, groupId, after, Math.min(CSV_PAGE, MAX_EXPORT_FILES - seen));
    if (ids.length === 0) return;
    seen += ids.length;
    after = ids[ids.length - 1];
    yield ids;
  }
}

/** The templates that become columns, in form order. */
export function csvTemplates(rc: RequestContext): Promise<FieldTemplateRow[]> {
  return listTemplateRows(rc.db, { skip: 0, take: MAX_CSV_FIELDS });
}

/**
 * The folder path of each file: its first folder's chain from the top, keeping only the folders the caller may read
 * (from the file's folder upwards, up to the first one hidden from them), so a path never names a hidden folder.
 */
async function pathsOf(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<Map<string, string>> {
  const chains = await folderChains(rc.db, ids);
  const groupIds = [...new Set([...chains.values()].flat().map((g) => g.id))].filter((id) => id !== ROOT_GROUP_ID);
  const readable = await accessibleIds(rc, actor, "group", groupIds, "read");
  const out = new Map<string, string>();
  for (const [assetId, chain] of chains) {
    const names: string[] = [];
    for (let i = chain.length - 1; i >= 0 && chain[i].id !== ROOT_GROUP_ID && readable.has(chain[i].id); i--) names.unshift(chain[i].name);
    out.set(assetId, names.join("/"));
  }
  return out;
}

/** The CSV rows of one page of ids: readable live files only, in the page's order. */
async function pageRows(rc: RequestContext, actor: Actor, templates: readonly FieldTemplateRow[], ids: readonly string[]): Promise<string> {
  const readable = await accessibleIds(rc, actor, "asset", ids, "read");
  const visible = ids.filter((id) => readable.has(id));
  if (visible.length === 0) return "";
  const [files, paths, values] = await Promise.all([csvAssets(rc.db, visible), pathsOf(rc, actor, visible), untimedValuesOf(rc.db, visible)]);
  const byFile = new Map<string, Map<string, unknown[]>>();
  for (const v of values) {
    const defs = byFile.get(v.entity_id) ?? new Map<string, unknown[]>();
    const list = defs.get(v.def_id) ?? [];
    const data = JSON.parse(v.data) as unknown;
    // The same value kept for the file and for a version (an import per version) is one value in the cell.
    if (!list.some((x) => JSON.stringify(x) === v.data)) list.push(data);
    defs.set(v.def_id, list);
    byFile.set(v.entity_id, defs);
  }
  const names = new Map(files.map((f) => [f.id, f.name]));
  let out = "";
  for (const id of visible) {
    const name = names.get(id);
    if (name === undefined) continue;
    const defs = byFile.get(id);
    out += csvRow([id, name, paths.get(id) ?? "", ...templates.map((t) => valuesToCell(t.fieldType, defs?.get(t.id) ?? []))]);
  }
  return out;
}

/**
 * The CSV of the files `pages` lists, as a UTF-8 stream with a BOM: header `asset_id,name,path,<field names…>`, then
 * one row per file the caller may read (others are left out without a trace).
 */
export function metadataCsvStream(rc: RequestContext, actor: Actor, templates: readonly FieldTemplateRow[], pages: AssetIdPages): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(CSV_BOM + csvRow([...FIXED_COLUMNS, ...templates.map((t) => t.name)])));
        return;
      }
      // Pages whose files are all hidden write nothing; keep going until something is written or the pages end.
      for (;;) {
        const next = await iterator.next();
        if (next.done) return controller.close();
        const text = await pageRows(rc, actor, templates, next.value);
        if (text) return controller.enqueue(encoder.encode(text));
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * GET /api/metadata/csv: the CSV of a folder (with its subfolders; the folder must be readable, else the same 404 as
 * for none) or of any other source of asset ids (a search; later a collection), which the caller passes in so this
 * domain need not depend on it.
 */
export async function exportMetadataCsv(
  rc: RequestContext,
  actor: Actor,
  source: { group_id: string } | { pages: AssetIdPages; filename: string },
): Promise<{ stream: ReadableStream<Uint8Array>; filename: string }> {
  const templates = await csvTemplates(rc);
  if ("pages" in source) return { stream: metadataCsvStream(rc, actor, templates, source.pages), filename: source.filename };
  const id = source.group_id;
  // A deleted folder is the same 404 as a folder that never was.
  const group = await liveGroup(rc.db, id);
  if (!group) throw new AppError("NOT_FOUND", ru.metadataCsv.folderNotFound);
  await requireEntityAccess(rc, actor, { id, type: "group", ownerId: group.owner_id }, "read", ru.metadataCsv.folderNotFound);
  return { stream: metadataCsvStream(rc, actor, templates, folderAssetPages(rc, id)), filename: `${group.name}.csv` };
}
