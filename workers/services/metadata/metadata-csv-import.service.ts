/**
 * Metadata CSV import (decision record 009, «CSV in and out»): the body is decoded (UTF-8, or Windows-1251 detected
 * and decoded), parsed by papaparse (RFC 4180: quoted commas, quotes and line breaks), its header matched against the
 * field templates and every row checked like a value typed in the viewer — the file must exist and be readable (the
 * same «not found» otherwise, so ids of hidden files reveal nothing), the caller must hold `update` on it, every cell
 * must fit its field's type. A dry run answers rows, changes and per-row errors; applying writes only the rows
 * without errors, each row's changes together (a chunk of rows per D1 batch), with the `field.changed` events.
 */
import Papa from "papaparse";
import { ru } from "../../../shared/i18n/ru";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import { findClassDefs } from "../../db/repositories/field.repository";
import { csvAssets, replaceCsvValuesStatements, untimedValuesOf, type CsvValueRow } from "../../db/repositories/metadata-csv.repository";
import { foldName } from "../../db/repositories/tag.repository";
import type { FieldTemplateRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN, newId } from "../../lib/ids";
import { accessibleIds } from "../access";
import type { Actor, RequestContext } from "../access";
import { FIXED_COLUMNS, cellToValue, decodeCsvBody, splitMulti, unguardCell } from "./csv-format";
import { csvTemplates } from "./metadata-csv-export.service";
import type { FieldSetup } from "./field-types/setup";
import { validateFieldValue } from "./field-types/validate";
import { checkedValue, fieldEventStatements } from "./field-value.service";

/** Largest body accepted (413 above, before it is read whole). */
export const MAX_CSV_BYTES = 20 * 1024 * 1024;
/** Most data rows in one file. */
export const MAX_CSV_ROWS = 50_000;
/** Errors listed in an answer; the count of rows with errors is always complete. */
export const MAX_REPORTED_ERRORS = 1000;
/** Rows checked together: one query each for the files, their rights and their current values. */
const CHECK_PAGE = 1000;
/** Rows written in one D1 batch (each row's values and events; a batch is all or nothing). */
const WRITE_ROWS = 100;
/** Bytes of values in one insert parameter, well within D1's limits on a bound value. */
const WRITE_BYTES = 512 * 1024;

/** One data row: its number as a spreadsheet shows it (the header is row 1) and its cells. */
export interface CsvRecord {
  row: number;
  cells: string[];
}

export interface CsvError {
  row: number;
  message: string;
}

/** The parsed body: the header, the data rows and the errors found while parsing (open quotes, bad quotes). */
export interface ParsedCsv {
  header: string[];
  records: CsvRecord[];
  parseErrors: CsvError[];
  encoding: "utf-8" | "windows-1251";
}

/** The header resolved against the templates: which column holds the id and which field each other column is. */
export interface CsvColumns {
  asset: number;
  fields: { index: number; template: FieldTemplateRow }[];
  errors: CsvError[];
}

/** The answer of a dry run (and the plan an apply then writes). */
export interface CsvReport {
  rows: number;
  changes: number;
  /** rows without errors that change something */
  changed_rows: number;
  errors: CsvError[];
  /** rows with at least one error (all of them, even when `errors` is cut at MAX_REPORTED_ERRORS) */
  error_rows: number;
  encoding: "utf-8" | "windows-1251";
}

/** A row that passed every check, with the fields it changes. */
interface PlannedRow {
  row: number;
  assetId: string;
  ownerId: string;
  changes: { template: FieldTemplateRow; values: { data: unknown; valueText: string | null; valueNum: number | null }[] }[];
}

/**
 * Reads a request body up to MAX_CSV_BYTES: a declared Content-Length above it is refused before reading, and an
 * undeclared body is counted as it streams (413 naming the limit either way).
 */
export async function readCsvBody(body: ReadableStream<Uint8Array> | null, declared: number | null): Promise<Uint8Array> {
  const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", ru.metadataCsv.tooLarge(MAX_CSV_BYTES / 1024 / 1024));
  if (declared !== null && declared > MAX_CSV_BYTES) {
    await body?.cancel();
    throw tooLarge();
  }
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_CSV_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Decodes and parses a body; 400 for a body that is not text or has no header, or has too many rows. */
export function parseCsv(bytes: Uint8Array): ParsedCsv {
  const decoded = decodeCsvBody(bytes);
  if (!decoded.ok) throw new AppError("BAD_REQUEST", decoded.reason === "binary" ? ru.metadataCsv.binary : ru.metadataCsv.encoding);
  // Russian Excel separates with «;»: the delimiter is guessed among comma, semicolon and tab.
  const parsed = Papa.parse<string[]>(decoded.text, { delimiter: "", delimitersToGuess: [",", ";", "\t"], skipEmptyLines: "greedy", preview: MAX_CSV_ROWS + 2 });
  const [header, ...rest] = parsed.data;
  if (!header || header.every((h) => h.trim() === "")) throw new AppError("BAD_REQUEST", ru.metadataCsv.empty);
  if (rest.length > MAX_CSV_ROWS) throw new AppError("BAD_REQUEST", ru.metadataCsv.tooManyRows(MAX_CSV_ROWS));
  const parseErrors: CsvError[] = [];
  for (const e of parsed.errors) {
    if (e.code === "UndetectableDelimiter" || e.row === undefined) continue;
    // An open quote swallows the rest of the file into one cell: that row (the last one papaparse answers) is not data.
    parseErrors.push({ row: e.row + 1, message: e.code === "MissingQuotes" ? ru.metadataCsv.openQuote : ru.metadataCsv.badQuotes });
  }
  // Rows with a parse error stay counted but are never checked or applied (checkAll leaves them out).
  const records = rest.map((cells, i) => ({ row: i + 2, cells }));
  return { header: header.map((h) => h.trim()), records, parseErrors, encoding: decoded.encoding };
}

/** Matches the header against the templates (names case-insensitive); unknown and repeated columns are errors of row 1. */
export function resolveColumns(header: readonly string[], templates: readonly FieldTemplateRow[]): CsvColumns {
  const byName = new Map(templates.map((t) => [foldName(t.name.trim()), t]));
  const fixed = new Set<string>(FIXED_COLUMNS);
  const seen = new Set<string>();
  const out: CsvColumns = { asset: header.indexOf("asset_id"), fields: [], errors: [] };
  if (out.asset < 0) out.errors.push({ row: 1, message: ru.metadataCsv.noAssetColumn });
  header.forEach((name, index) => {
    const key = foldName(name);
    if (seen.has(key)) return out.errors.push({ row: 1, message: ru.metadataCsv.duplicateColumn(name) });
    seen.add(key);
    if (fixed.has(name)) return;
    const template = byName.get(key);
    if (!template) return out.errors.push({ row: 1, message: ru.metadataCsv.unknownColumn(name) });
    out.fields.push({ index, template });
  });
  return out;
}

/** The values a cell sets (none for an empty cell), or the reason it cannot. */
async function cellValues(rc: RequestContext, actor: Actor, template: FieldTemplateRow, raw: string) {
  const setup = template.setup as FieldSetup;
  const text = unguardCell(raw);
  const pieces = text.trim() === "" ? [] : setup.multiple ? splitMulti(text).map(unguardCell) : [text];
  const values: { data: unknown; valueText: string | null; valueNum: number | null }[] = [];
  for (const piece of pieces) {
    const cell = cellToValue(template.fieldType, piece, { number: ru.metadataCsv.numberCell, bool: ru.metadataCsv.boolCell, json: ru.metadataCsv.jsonCell });
    if (!cell.ok) return { error: ru.metadata.invalidValue(template.name, cell.message) };
    const checked = validateFieldValue(template.fieldType, setup, cell.value);
    if (!checked.ok) return { error: ru.metadata.invalidValue(template.name, checked.message) };
    if (checked.refs.length > 0) {
      // References must exist and be readable by the caller, exactly as for a value typed in the viewer.
      try {
        await checkedValue(rc, actor, template, cell.value);
      } catch (error) {
        if (error instanceof AppError) return { error: error.message };
        throw error;
      }
    }
    values.push({ data: checked.data, valueText: checked.valueText, valueNum: checked.valueNum });
  }
  return { values };
}

/**
 * Checks one page of rows: files, rights and current values are read once for the page. Answers the rows that pass
 * (with what they change) and the errors of the others. `seen` tracks ids across pages (a file twice is an error).
 */
async function checkPage(
  rc: RequestContext,
  actor: Actor,
  columns: CsvColumns,
  records: readonly CsvRecord[],
  seen: Map<string, number>,
  width: number,
): Promise<{ planned: PlannedRow[]; errors: CsvError[]; errorRows: number; changes: number }> {
  const ids = [...new Set(records.map((r) => (r.cells[columns.asset] ?? "").trim()).filter((id) => ID_PATTERN.test(id)))];
  const files = ids.length === 0 ? [] : await csvAssets(rc.db, ids);
  const live = files.map((f) => f.id);
  const [readable, updatable] = await Promise.all([accessibleIds(rc, actor, "asset", live, "read"), accessibleIds(rc, actor, "asset", live, "update")]);
  const writable = live.filter((id) => updatable.has(id) && readable.has(id));
  const current = writable.length === 0 ? [] : await untimedValuesOf(rc.db, writable);
  const currentOf = new Map<string, string[]>();
  for (const v of current) {
    const key = `${v.entity_id}:${v.def_id}`;
    const list = currentOf.get(key) ?? [];
    if (!list.includes(v.data)) list.push(v.data);
    currentOf.set(key, list);
  }
  const fileOf = new Map(files.map((f) => [f.id, f]));
  const classIds = [...new Set(files.map((f) => f.class_id).filter((c): c is string => !!c))];
  const requiredOf = new Map<string, Set<string>>();
  for (const classId of classIds) requiredOf.set(classId, new Set((await findClassDefs(rc.db, classId))?.defFields ?? []));

  const planned: PlannedRow[] = [];
  const errors: CsvError[] = [];
  let errorRows = 0;
  let changes = 0;
  for (const record of records) {
    const rowErrors: string[] = [];
    const id = (record.cells[columns.asset] ?? "").trim();
    if (record.cells.length !== width) rowErrors.push(ru.metadataCsv.cellCount(record.cells.length, width));
    const file = fileOf.get(id);
    const before = seen.get(id);
    // Unknown, malformed, deleted and unreadable ids get one and the same answer.
    if (!file || !readable.has(id)) rowErrors.push(ru.metadataCsv.assetNotFound);
    else if (!updatable.has(id)) rowErrors.push(ru.metadataCsv.noUpdate);
    else if (before !== undefined) rowErrors.push(ru.metadataCsv.repeated(before));
    if (file && before === undefined) seen.set(id, record.row);
    const row: PlannedRow = { row: record.row, assetId: id, ownerId: file?.owner_id ?? "", changes: [] };
    if (rowErrors.length === 0 && file) {
      for (const { index, template } of columns.fields) {
        const result = await cellValues(rc, actor, template, record.cells[index] ?? "");
        if ("error" in result) {
          rowErrors.push(result.error ?? "");
          continue;
        }
        const required = file.class_id && requiredOf.get(file.class_id)?.has(template.id) && (template.setup as FieldSetup).required;
        if (result.values.length === 0 && required) {
          rowErrors.push(ru.metadataCsv.requiredEmpty(template.name));
          continue;
        }
        const now = JSON.stringify(result.values.map((v) => JSON.stringify(v.data)));
        const was = JSON.stringify(currentOf.get(`${id}:${template.id}`) ?? []);
        if (now !== was) row.changes.push({ template, values: result.values });
      }
    }
    if (rowErrors.length > 0) {
      errorRows++;
      for (const message of rowErrors) errors.push({ row: record.row, message });
      continue;
    }
    if (row.changes.length > 0) {
      changes += row.changes.length;
      planned.push(row);
    }
  }
  return { planned, errors, errorRows, changes };
}

/** Walks every row in pages; `onPage` receives each page's passing rows (to write them) as it goes. */
async function checkAll(
  rc: RequestContext,
  actor: Actor,
  parsed: Pick<ParsedCsv, "header" | "records" | "parseErrors" | "encoding">,
  onPage?: (planned: PlannedRow[]) => Promise<void>,
): Promise<{ report: CsvReport; passing: Set<number> }> {
  const columns = resolveColumns(parsed.header, await csvTemplates(rc));
  const report: CsvReport = { rows: parsed.records.length, changes: 0, changed_rows: 0, errors: [...columns.errors], error_rows: 0, encoding: parsed.encoding };
  const add = (e: CsvError[]) => {
    for (const x of e) if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push(x);
  };
  const parseRows = new Set(parsed.parseErrors.map((e) => e.row));
  report.error_rows += parseRows.size;
  add(parsed.parseErrors);
  const passing = new Set<number>();
  if (columns.asset < 0) return { report, passing };
  const seen = new Map<string, number>();
  for (let i = 0; i < parsed.records.length; i += CHECK_PAGE) {
    const page = parsed.records.slice(i, i + CHECK_PAGE).filter((r) => !parseRows.has(r.row));
    const result = await checkPage(rc, actor, columns, page, seen, parsed.header.length);
    report.changes += result.changes;
    report.changed_rows += result.planned.length;
    for (const p of result.planned) passing.add(p.row);
    report.error_rows += result.errorRows;
    add(result.errors);
    if (onPage && columns.errors.length === 0) await onPage(result.planned);
  }
  report.errors.sort((a, b) => a.row - b.row);
  return { report, passing };
}

/** POST /api/metadata/csv?dry_run=1: what the file would change, and every row's errors; nothing is written. */
export async function dryRunMetadataCsv(rc: RequestContext, actor: Actor, bytes: Uint8Array): Promise<CsvReport> {
  return (await checkAll(rc, actor, parseCsv(bytes))).report;
}

/**
 * POST /api/metadata/csv without dry_run, first half: the whole file is checked as in a dry run (400 while the header
 * has errors); answers the report and the rows that would change something, for the task to apply.
 */
export async function planMetadataCsv(rc: RequestContext, actor: Actor, bytes: Uint8Array): Promise<{ report: CsvReport; header: string[]; records: CsvRecord[] }> {
  const parsed = parseCsv(bytes);
  const { report, passing } = await checkAll(rc, actor, parsed);
  if (report.errors.some((e) => e.row === 1)) throw new AppError("BAD_REQUEST", `${ru.metadataCsv.headerInvalid}: ${report.errors.filter((e) => e.row === 1).map((e) => e.message).join("; ")}`);
  return { report, header: parsed.header, records: parsed.records.filter((r) => passing.has(r.row)) };
}

/** Writes passing rows, WRITE_ROWS (or WRITE_BYTES of values) per batch; each batch is all or nothing. */
async function writeRows(rc: RequestContext, actor: Actor, planned: readonly PlannedRow[]): Promise<void> {
  let pairs: [string, string][] = [];
  let rows: CsvValueRow[] = [];
  let events: Statement[] = [];
  let count = 0;
  let bytes = 0;
  const flush = async () => {
    if (pairs.length > 0) await runBatch(rc.db, [...replaceCsvValuesStatements(rc.db, pairs, rows, actor.id, Date.now()), ...events]);
    pairs = [];
    rows = [];
    events = [];
    count = 0;
    bytes = 0;
  };
  // Ids grow with the order of the values, so a multi-valued cell keeps its order (ids are time-ordered).
  let tick = Date.now();
  for (const row of planned) {
    for (const change of row.changes) {
      pairs.push([row.assetId, change.template.id]);
      for (const v of change.values) {
        const data = JSON.stringify(v.data);
        bytes += data.length;
        rows.push([newId(tick++), row.assetId, change.template.id, data, v.valueText, v.valueNum]);
      }
      const entity = { id: row.assetId, type: "asset" as const, owner_id: row.ownerId };
      const multiple = (change.template.setup as FieldSetup).multiple;
      const value = change.values.length === 0 ? null : multiple ? change.values.map((v) => v.data) : change.values[0].data;
      events.push(...fieldEventStatements(rc, actor.id, [entity], change.template.id, value));
    }
    if (++count >= WRITE_ROWS || bytes >= WRITE_BYTES) await flush();
  }
  await flush();
}

/**
 * Checks the rows again (rights and values may have changed since the dry run) and writes those that pass: what the
 * import task runs over each stored chunk of the file.
 */
export async function applyMetadataCsvRows(
  rc: RequestContext,
  actor: Actor,
  chunk: { header: string[]; records: CsvRecord[] },
): Promise<CsvReport> {
  return (await checkAll(rc, actor, { ...chunk, parseErrors: [], encoding: "utf-8" }, (planned) => writeRows(rc, actor, planned))).report;
}
