import { apiRequest } from "../api-client";
import type { PickedFile } from "./pick";

/**
 * The duplicate rule of an upload batch: before anything is created, the SHA-256 of each new file (not a new version)
 * is computed in the browser and asked of the server (`POST /api/asset/duplicate-lookup`, which answers only files
 * the caller may read). For every file the library already holds the user chooses: open the existing file (this one
 * is not uploaded), upload it anyway, or add it as a new version of the existing file.
 */

/** A readable file with the same bytes (the server's answer). */
export interface DuplicateMatch {
  asset_id: string;
  name: string;
  mime: string;
  size: number;
  version: number;
  folder: { id: string; name: string } | null;
  preview: string | null;
}

export type DuplicateChoice = "open" | "anyway" | "version";

/** Asks about one picked file and the files it duplicates; null: the dialog was closed (the file is skipped). */
export type AskDuplicate = (name: string, matches: readonly DuplicateMatch[]) => Promise<DuplicateChoice | null>;

/**
 * Files hashed before upload: larger ones are read whole into memory by `crypto.subtle.digest`, so they are left
 * to the server's exact duplicate list after the commit.
 */
export const HASH_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Bytes hashed per batch at most (a folder of thousands of photos is not read twice before it starts). */
export const HASH_MAX_BATCH_BYTES = 512 * 1024 * 1024;
/** Hashes the server checks per call. */
export const HASHES_PER_CHECK = 100;

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Which picked files should be hashed: new files, non-empty, within the per-file and per-batch budgets. */
export function filesToHash(picked: readonly PickedFile[]): PickedFile[] {
  const out: PickedFile[] = [];
  let budget = HASH_MAX_BATCH_BYTES;
  for (const p of picked) {
    if (p.versionOf || p.file.size === 0 || p.file.size > HASH_MAX_FILE_BYTES || p.file.size > budget) continue;
    budget -= p.file.size;
    out.push(p);
  }
  return out;
}

/** The readable files each picked file duplicates (only files with matches are keys). */
export async function findDuplicates(picked: readonly PickedFile[]): Promise<Map<PickedFile, DuplicateMatch[]>> {
  const hashed: { p: PickedFile; sha256: string }[] = [];
  for (const p of filesToHash(picked)) hashed.push({ p, sha256: hex(await crypto.subtle.digest("SHA-256", await p.file.arrayBuffer())) });
  const byHash = new Map<string, DuplicateMatch[]>();
  const hashes = [...new Set(hashed.map((h) => h.sha256))];
  for (let i = 0; i < hashes.length; i += HASHES_PER_CHECK) {
    const { matches } = await apiRequest<{ matches: { sha256: string; files: DuplicateMatch[] }[] }>("/api/asset/duplicate-lookup", {
      method: "POST",
      body: { sha256: hashes.slice(i, i + HASHES_PER_CHECK) },
    });
    for (const m of matches) byHash.set(m.sha256, m.files);
  }
  const found = new Map<PickedFile, DuplicateMatch[]>();
  for (const h of hashed) {
    const files = byHash.get(h.sha256);
    if (files?.length) found.set(h.p, files);
  }
  return found;
}

/**
 * Applies the user's choices: answers the files to queue (in the order given; a new version carries `versionOf` of
 * the first match) and the files to open instead. A closed dialog skips its file.
 */
export async function resolveDuplicates(
  picked: readonly PickedFile[],
  found: ReadonlyMap<PickedFile, readonly DuplicateMatch[]>,
  ask: AskDuplicate,
): Promise<{ queue: PickedFile[]; open: DuplicateMatch[] }> {
  const queue: PickedFile[] = [];
  const open: DuplicateMatch[] = [];
  for (const p of picked) {
    const matches = found.get(p);
    if (!matches?.length) {
      queue.push(p);
      continue;
    }
    const choice = await ask(p.file.name, matches);
    if (choice === "anyway") queue.push(p);
    else if (choice === "version") queue.push({ ...p, versionOf: matches[0].asset_id, keepBoth: undefined });
    else if (choice === "open") open.push(matches[0]);
  }
  return { queue, open };
}
