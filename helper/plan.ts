/**
 * Two-way sync as a pure function: from the last synced state (the manifest), what is on disk now and what the
 * server lists now, the list of actions that brings both sides together without losing a byte. The sync engine
 * (mount-sync.ts) executes the actions; everything here is unit-tested (tests/unit/helper-plan.test.ts).
 *
 * Rules, per file:
 * - changed on one side only → that side wins (upload a new version / download);
 * - changed on both sides → conflict: the server's version keeps the name, the local copy is renamed
 *   («… (конфликт YYYY-MM-DD).ext») and uploaded as a new file;
 * - deleted on one side, unchanged on the other → deleted on the other too (server: to the trash; disk: moved to
 *   `.trash` under the root, never unlinked);
 * - deleted on one side, changed on the other → the change wins (re-uploaded as a new file / downloaded again);
 * - new on disk → a new file; new on the server → downloaded; new on both under one name with the same bytes →
 *   linked, with different bytes → conflict.
 */

/** What the manifest remembers of a file as both sides had it after its last sync. */
export interface ManifestEntry {
  /** path relative to the mount folder (one segment: the mount syncs the folder's own files) */
  path: string;
  asset_id: string;
  /** the variant whose bytes the local file holds */
  variant_id: string;
  size: number;
  mtime_ms: number;
  sha256: string;
}

/** A local file as the scan found it. */
export interface LocalFile {
  path: string;
  size: number;
  mtime_ms: number;
}

/** A file of the group as the server lists it (only committed versions: a version being uploaded has no hash yet). */
export interface RemoteFile {
  asset_id: string;
  name: string;
  variant_id: string;
  size: number;
  sha256: string;
}

export type SyncAction =
  /** a local file the server does not have: create a file, upload its bytes */
  | { kind: "upload-new"; path: string }
  /** the local file changed: upload a new version of the asset (unless its bytes turn out unchanged) */
  | { kind: "upload-version"; path: string; entry: ManifestEntry }
  /** the server's file is new or changed: download it to `path` */
  | { kind: "download"; path: string; remote: RemoteFile }
  /** the local file was deleted: the server's file goes to the trash */
  | { kind: "trash-remote"; entry: ManifestEntry }
  /** the server's file was deleted: the local file moves to `.trash` */
  | { kind: "trash-local"; entry: ManifestEntry }
  /** both changed: rename the local file to a conflict copy (uploaded as new), download the server's to `path` */
  | { kind: "conflict"; path: string; remote: RemoteFile; entry: ManifestEntry | null }
  /** the same bytes on both sides (found by name): remember them as synced */
  | { kind: "link"; path: string; remote: RemoteFile }
  /** the server's file is gone and the local file is gone: forget it */
  | { kind: "forget"; entry: ManifestEntry };

/** True when the local file may differ from what the manifest remembers (size or modification time moved). */
export function localMayHaveChanged(local: LocalFile, entry: ManifestEntry): boolean {
  return local.size !== entry.size || local.mtime_ms !== entry.mtime_ms;
}

/**
 * The actions, in a safe order: trashing and conflicts first (they free names), then downloads, then uploads.
 * `sameBytes(path, sha256)` answers whether a local file holds exactly those bytes (hashing it); the planner asks
 * only for new-on-both-sides names, so unchanged folders cost no hashing.
 */
export async function planSync(
  manifest: readonly ManifestEntry[],
  local: readonly LocalFile[],
  remote: readonly RemoteFile[],
  sameBytes: (path: string, sha256: string) => Promise<boolean>,
  localName: (remote: RemoteFile, taken: (path: string) => boolean) => string,
): Promise<SyncAction[]> {
  const localByPath = new Map(local.map((f) => [f.path, f]));
  const remoteById = new Map(remote.map((f) => [f.asset_id, f]));
  const knownAssets = new Set(manifest.map((e) => e.asset_id));
  const knownPaths = new Set(manifest.map((e) => e.path));
  const first: SyncAction[] = [];
  const downloads: SyncAction[] = [];
  const uploads: SyncAction[] = [];

  for (const entry of manifest) {
    const file = localByPath.get(entry.path);
    const server = remoteById.get(entry.asset_id);
    const localChanged = file !== undefined && localMayHaveChanged(file, entry);
    const remoteChanged = server !== undefined && server.sha256 !== entry.sha256;
    if (!file && !server) first.push({ kind: "forget", entry });
    else if (!file && server) {
      if (remoteChanged) downloads.push({ kind: "download", path: entry.path, remote: server });
      else first.push({ kind: "trash-remote", entry });
    } else if (file && !server) {
      // Deleted on the server while edited here: the edit survives as a new file.
      if (localChanged) {
        first.push({ kind: "forget", entry });
        uploads.push({ kind: "upload-new", path: entry.path });
      } else first.push({ kind: "trash-local", entry });
    } else if (file && server) {
      if (localChanged && remoteChanged) first.push({ kind: "conflict", path: entry.path, remote: server, entry });
      else if (remoteChanged) downloads.push({ kind: "download", path: entry.path, remote: server });
      else if (localChanged) uploads.push({ kind: "upload-version", path: entry.path, entry });
    }
  }

  // Files new on the server: by name against files new on disk.
  const newLocal = new Map(local.filter((f) => !knownPaths.has(f.path)).map((f) => [f.path, f]));
  const claimed = new Set<string>([...knownPaths]);
  const taken = (path: string) => claimed.has(path) || localByPath.has(path);
  for (const server of remote) {
    if (knownAssets.has(server.asset_id)) continue;
    const path = localName(server, (p) => claimed.has(p));
    const clash = newLocal.get(path);
    if (clash) {
      newLocal.delete(path);
      claimed.add(path);
      if (clash.size === server.size && (await sameBytes(path, server.sha256))) downloads.push({ kind: "link", path, remote: server });
      else first.push({ kind: "conflict", path, remote: server, entry: null });
      continue;
    }
    const target = taken(path) ? localName(server, taken) : path;
    claimed.add(target);
    downloads.push({ kind: "download", path: target, remote: server });
  }
  for (const path of newLocal.keys()) uploads.push({ kind: "upload-new", path });
  return [...first, ...downloads, ...uploads];
}
