import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";

/**
 * The helper's memory across restarts, in `<root>/.mam-helper/`: `state.json` (the token and the mounted groups)
 * and one `mount-<group>.json` per mount (its manifest and unfinished uploads with the parts already stored). Each
 * write goes to a temporary file renamed over the old one, so a crash mid-write leaves the previous state whole.
 */

export const HELPER_DIR = ".mam-helper";

const ManifestEntrySchema = z.object({
  path: z.string(),
  asset_id: z.string(),
  variant_id: z.string(),
  size: z.number(),
  mtime_ms: z.number(),
  sha256: z.string(),
});

const PendingUploadSchema = z.object({
  path: z.string(),
  /** null until POST /api/asset/create answered (a new file); the asset of a new version otherwise */
  asset_id: z.string().nullable(),
  /** the file as it was when the upload started: a change since makes the stored parts stale */
  size: z.number(),
  mtime_ms: z.number(),
  variant_id: z.string().nullable(),
  mode: z.enum(["single", "multipart"]).nullable(),
  upload_url: z.string().nullable(),
  part_size: z.number().nullable(),
  upload_id: z.string().nullable(),
  parts: z.array(z.object({ n: z.number().int(), etag: z.string() })),
});

const MountFileSchema = z.object({
  group_id: z.string(),
  manifest: z.array(ManifestEntrySchema),
  pending: z.array(PendingUploadSchema),
});

const StateFileSchema = z.object({
  token: z.string().nullable(),
  mounts: z.array(z.object({ group_id: z.string(), group_name: z.string(), name: z.string() })),
});

export type PendingUpload = z.infer<typeof PendingUploadSchema>;
export type MountFile = z.infer<typeof MountFileSchema>;
export type StateFile = z.infer<typeof StateFileSchema>;

async function readJson<T>(file: string, schema: z.ZodType<T>, empty: T): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return empty;
    throw error;
  }
  return schema.parse(JSON.parse(text));
}

let writes = 0;

/** Writes JSON atomically (temporary file + rename), readable by the user only: the state holds a token. */
async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${++writes}.tmp`;
  await writeFile(tmp, JSON.stringify(value), { mode: 0o600 });
  await rename(tmp, file);
}

export function stateFile(root: string): string {
  return join(root, HELPER_DIR, "state.json");
}

export function mountFile(root: string, groupId: string): string {
  return join(root, HELPER_DIR, `mount-${groupId}.json`);
}

export const readState = (root: string) => readJson(stateFile(root), StateFileSchema, { token: null, mounts: [] });
export const writeState = (root: string, state: StateFile) => writeJson(stateFile(root), state);
export const readMount = (root: string, groupId: string) =>
  readJson(mountFile(root, groupId), MountFileSchema, { group_id: groupId, manifest: [], pending: [] });
export const writeMount = (root: string, state: MountFile) => writeJson(mountFile(root, state.group_id), state);
