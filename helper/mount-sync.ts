import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, watch, type FSWatcher } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiCallError, type ApiClient } from "./api-client.ts";
import { conflictName, localNameOf, uniqueName } from "./conflict-name.ts";
import { mimeOf } from "./mime.ts";
import { localMayHaveChanged, planSync, type LocalFile, type ManifestEntry, type SyncAction } from "./plan.ts";
import type { MountState, MountStatus } from "./schemas.ts";
import { HELPER_DIR, readMount, writeMount, type MountFile, type PendingUpload } from "./state-store.ts";

/** Files at or above this size go up in parts (the server's smallest part, 5 MiB), resumable after a restart. */
const MULTIPART_MIN_BYTES = 5 * 1024 * 1024;
/** Parts in flight per file, and files in flight per mount. */
const PARALLEL_PARTS = 4;
const PARALLEL_FILES = 8;
/** A file modified this recently may still be being written: it waits for the next pass. */
const SETTLE_MS = 1_000;
/** How long a committed upload may take to be hashed by the server (a large file is hashed in several runs). */
const READY_TIMEOUT_MS = 30 * 60_000;
/** Coalesces bursts of file-system events into one pass. */
const WATCH_DEBOUNCE_MS = 300;

export interface MountOptions {
  root: string;
  group_id: string;
  group_name: string;
  name: string;
  api: ApiClient;
  /** seconds between passes (remote changes are polled); null: only when asked (tests of the HTTP contract) */
  intervalMs: number | null;
  /** react to local changes at once through fs.watch (the periodic pass catches anything it misses) */
  watch: boolean;
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task` over `items`, at most `limit` at a time; every item runs even when some fail (errors are collected). */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        await task(items[i]);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return errors;
}

/** Hex SHA-256 of a local file, streamed. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) hash.update(chunk);
  });
  return hash.digest("hex");
}

/**
 * One mounted group: a folder under the root kept in two-way sync with the group's files. A pass scans the
 * folder, lists the group, plans (plan.ts) and executes; passes never overlap, and a pass asked for while one runs
 * runs right after it. Uploads are the app's: create the file, create-version, one PUT or the S3 multipart flow
 * with every stored part remembered, so a restart continues where the upload stopped.
 */
export class MountSync {
  readonly folder: string;
  private readonly o: MountOptions;
  private file: MountFile;
  private state: MountState = "starting";
  private lastSyncAt: string | null = null;
  private lastError: string | null = null;
  private readonly totals = { uploaded: 0, downloaded: 0, trashed_local: 0, trashed_remote: 0, conflicts: 0 };
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private debounce: ReturnType<typeof setTimeout> | null = null;
  private watcher: FSWatcher | null = null;
  private saving: Promise<void> = Promise.resolve();
  private queuedSave: Promise<void> | null = null;

  constructor(options: MountOptions) {
    this.o = options;
    this.folder = join(options.root, options.name);
    this.file = { group_id: options.group_id, manifest: [], pending: [] };
  }

  status(): MountStatus {
    return {
      group_id: this.o.group_id,
      group_name: this.o.group_name,
      name: this.o.name,
      path: this.folder,
      state: this.state,
      files: this.file.manifest.length,
      pending_uploads: this.file.pending.length,
      last_sync_at: this.lastSyncAt,
      last_error: this.lastError,
      totals: { ...this.totals },
    };
  }

  /** Loads the manifest, creates the folder and starts the passes (the first one at once). */
  async start(): Promise<void> {
    await mkdir(this.folder, { recursive: true });
    this.file = await readMount(this.o.root, this.o.group_id);
    if (this.o.watch) {
      try {
        this.watcher = watch(this.folder, { persistent: false }, () => this.requestSoon());
        this.watcher.on("error", () => this.watcher?.close());
      } catch {
        // No watcher on this file system: the periodic pass alone notices local changes.
      }
    }
    if (this.o.intervalMs !== null) this.requestSync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
    await this.running?.catch(() => {});
    await this.saving;
  }

  private requestSoon(): void {
    if (this.stopped) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.requestSync(), WATCH_DEBOUNCE_MS);
  }

  /** Asks for a pass: now, or right after the running one. */
  requestSync(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.running = this.pass().finally(() => {
      this.running = null;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.requestSync();
      } else if (this.o.intervalMs !== null) this.timer = setTimeout(() => this.requestSync(), this.o.intervalMs);
    });
  }

  /** Runs one full pass and resolves when it (and any pass queued behind it) is done. */
  async syncNow(): Promise<void> {
    this.requestSync();
    while (this.running) await this.running;
  }

  private async pass(): Promise<void> {
    this.state = "syncing";
    try {
      const errors = [...(await this.resumePending()), ...(await this.passOnce())];
      this.lastSyncAt = new Date().toISOString();
      if (errors.length > 0) throw errors[0];
      this.state = "idle";
      this.lastError = null;
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 401) {
        this.state = "waiting-token";
        this.lastError = "Срок токена истёк: откройте приложение в браузере, оно передаст помощнику новый";
      } else {
        this.state = "error";
        this.lastError = error instanceof Error ? error.message : String(error);
      }
      this.o.log(`${this.o.name}: ${this.lastError}`);
    }
  }

  private async passOnce(): Promise<unknown[]> {
    const local = await this.scan();
    const remote = await this.o.api.listFiles(this.o.group_id);
    const now = Date.now();
    const settling = new Set(local.filter((f) => now - f.mtime_ms < SETTLE_MS).map((f) => f.path));
    const actions = await planSync(
      this.file.manifest,
      local,
      remote,
      async (path, sha256) => (await sha256OfFile(join(this.folder, path))) === sha256,
      (server, taken) => uniqueName(localNameOf(server.name), taken),
    );
    // A file still being written is left for a later pass (not read half-written, not mistaken for deleted).
    const touchesSettling = (a: SyncAction) => "path" in a && settling.has(a.path) && a.kind !== "download";
    // An upload a previous pass left unfinished is resumed by resumePending, never started over as a new file.
    const pendingPaths = new Set(this.file.pending.map((p) => p.path));
    const isPending = (a: SyncAction) => (a.kind === "upload-new" || a.kind === "upload-version") && pendingPaths.has(a.path);
    const now_ = actions.filter((a) => !touchesSettling(a) && !isPending(a));
    if (now_.length < actions.length) this.requestSoonAfter(SETTLE_MS);
    // Renames and trash moves first (one at a time: they free names), then transfers in parallel.
    const isSerial = (a: SyncAction) => a.kind === "conflict" || a.kind === "trash-local" || a.kind === "trash-remote" || a.kind === "forget";
    const serial = now_.filter(isSerial);
    const parallel = now_.filter((a) => !isSerial(a));
    const errors: unknown[] = [];
    const conflictCopies: string[] = [];
    for (const action of serial) {
      try {
        const copy = await this.execute(action);
        if (copy) conflictCopies.push(copy);
      } catch (error) {
        errors.push(error);
      }
    }
    const uploads = conflictCopies.map((path): SyncAction => ({ kind: "upload-new", path }));
    errors.push(...(await eachLimited([...parallel, ...uploads], PARALLEL_FILES, async (a) => void (await this.execute(a)))));
    await this.save();
    return errors;
  }

  private requestSoonAfter(ms: number): void {
    if (this.stopped) return;
    setTimeout(() => this.requestSync(), ms).unref?.();
  }

  /** The folder's own files (sub-folders and names starting with a dot are not synced). */
  private async scan(): Promise<LocalFile[]> {
    const entries = await readdir(this.folder, { withFileTypes: true });
    const files: LocalFile[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || entry.name.startsWith(".")) continue;
      try {
        const s = await stat(join(this.folder, entry.name));
        files.push({ path: entry.name, size: s.size, mtime_ms: s.mtimeMs });
      } catch {
        // Deleted between readdir and stat: the next pass sees it gone.
      }
    }
    return files;
  }

  /** Executes one action; answers the path of a conflict copy that still has to be uploaded. */
  private async execute(action: SyncAction): Promise<string | null> {
    switch (action.kind) {
      case "forget":
        this.dropEntry(action.entry.asset_id);
        return null;
      case "trash-remote":
        await this.o.api.trash(action.entry.asset_id);
        this.dropEntry(action.entry.asset_id);
        this.totals.trashed_remote++;
        this.o.log(`${this.o.name}: «${action.entry.path}» удалён на диске → в корзину на сервере`);
        return null;
      case "trash-local":
        await this.moveToTrash(action.entry.path);
        this.dropEntry(action.entry.asset_id);
        this.totals.trashed_local++;
        return null;
      case "conflict": {
        const copy = await this.setAsideConflict(action.path);
        await this.download(action.path, action.remote);
        return copy;
      }
      case "download":
        await this.download(action.path, action.remote);
        return null;
      case "link": {
        const s = await stat(join(this.folder, action.path));
        this.setEntry({ path: action.path, asset_id: action.remote.asset_id, variant_id: action.remote.variant_id, size: s.size, mtime_ms: s.mtimeMs, sha256: action.remote.sha256 });
        return null;
      }
      case "upload-new":
        await this.uploadNew(action.path);
        return null;
      case "upload-version":
        await this.uploadVersion(action.path, action.entry);
        return null;
    }
  }

  // ------------------------------------------------------------------------------------------------------------
  // Manifest

  private dropEntry(assetId: string): void {
    this.file.manifest = this.file.manifest.filter((e) => e.asset_id !== assetId);
    this.save();
  }

  private setEntry(entry: ManifestEntry): void {
    this.file.manifest = [...this.file.manifest.filter((e) => e.asset_id !== entry.asset_id && e.path !== entry.path), entry];
    this.save();
  }

  /**
   * Writes the mount's state behind the previous write (writes never overtake each other). Calls made while a write
   * waits share it: it snapshots the state when it starts, so it holds every change made before it, and a burst of
   * a thousand small files costs a few writes, not a thousand.
   */
  private save(): Promise<void> {
    if (this.queuedSave) return this.queuedSave;
    const next = this.saving.then(() => {
      this.queuedSave = null;
      return writeMount(this.o.root, structuredClone(this.file));
    });
    this.queuedSave = next.catch((error) => this.o.log(`state: ${String(error)}`));
    this.saving = this.queuedSave;
    return this.queuedSave;
  }

  // ------------------------------------------------------------------------------------------------------------
  // Local moves: nothing is ever unlinked

  private async moveToTrash(path: string): Promise<void> {
    const trash = join(this.o.root, ".trash", this.o.name);
    await mkdir(trash, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    await rename(join(this.folder, path), join(trash, `${stamp} ${path}`));
    this.o.log(`${this.o.name}: «${path}» удалён на сервере → ${join(".trash", this.o.name)}`);
  }

  /** Renames the local file at `path` to a free conflict name; answers that name. */
  private async setAsideConflict(path: string): Promise<string> {
    const existing = new Set((await readdir(this.folder)).map((n) => n));
    const copy = conflictName(path, new Date(), (c) => existing.has(c));
    await rename(join(this.folder, path), join(this.folder, copy));
    this.totals.conflicts++;
    this.o.log(`${this.o.name}: конфликт «${path}»: локальная копия сохранена как «${copy}»`);
    return copy;
  }

  // ------------------------------------------------------------------------------------------------------------
  // Downloads: into a temporary file, checked against the server's SHA-256, then renamed into place

  private async download(path: string, remote: { asset_id: string; variant_id: string; sha256: string }): Promise<void> {
    const tmpDir = join(this.o.root, HELPER_DIR, "tmp");
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, `${randomBytes(8).toString("hex")}.part`);
    try {
      const hash = createHash("sha256");
      const hashing = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      const body = await this.o.api.download(remote.variant_id);
      await pipeline(Readable.fromWeb(body as never), hashing, createWriteStream(tmp));
      const got = hash.digest("hex");
      if (got !== remote.sha256) throw new Error(`«${path}»: скачанные байты не совпали с сервером (SHA-256 ${got.slice(0, 12)}…)`);
      // The local file may have changed since the scan: then it is kept as a conflict copy, not overwritten.
      const target = join(this.folder, path);
      const known = this.file.manifest.find((e) => e.path === path);
      const current = await stat(target).catch(() => null);
      if (current && (!known || localMayHaveChanged({ path, size: current.size, mtime_ms: current.mtimeMs }, known))) {
        // The copy is a new local file: the next pass uploads it.
        await this.setAsideConflict(path);
        this.requestSoonAfter(SETTLE_MS);
      }
      await rename(tmp, target);
      const s = await stat(target);
      this.setEntry({ path, asset_id: remote.asset_id, variant_id: remote.variant_id, size: s.size, mtime_ms: s.mtimeMs, sha256: remote.sha256 });
      this.totals.downloaded++;
    } finally {
      await rm(tmp, { force: true });
    }
  }

  // ------------------------------------------------------------------------------------------------------------
  // Uploads

  private async uploadNew(path: string): Promise<void> {
    const s = await stat(join(this.folder, path));
    const pending = this.addPending({ path, asset_id: null, size: s.size, mtime_ms: s.mtimeMs });
    await this.runUpload(pending);
  }

  private async uploadVersion(path: string, entry: ManifestEntry): Promise<void> {
    const full = join(this.folder, path);
    const s = await stat(full);
    // Touched but not changed (a save without edits, a copy over itself): only the manifest moves.
    if (s.size === entry.size && (await sha256OfFile(full)) === entry.sha256) {
      this.setEntry({ ...entry, size: s.size, mtime_ms: s.mtimeMs });
      return;
    }
    const pending = this.addPending({ path, asset_id: entry.asset_id, size: s.size, mtime_ms: s.mtimeMs });
    await this.runUpload(pending);
  }

  private addPending(start: Pick<PendingUpload, "path" | "asset_id" | "size" | "mtime_ms">): PendingUpload {
    const pending: PendingUpload = { ...start, variant_id: null, mode: null, upload_url: null, part_size: null, upload_id: null, parts: [] };
    this.file.pending = [...this.file.pending.filter((p) => p.path !== start.path), pending];
    return pending;
  }

  /** Continues the uploads a previous run left unfinished (the parts already stored are not sent again). */
  private async resumePending(): Promise<unknown[]> {
    const pending = [...this.file.pending];
    if (pending.length === 0) return [];
    this.o.log(`${this.o.name}: продолжаю ${pending.length} незавершённых загрузок`);
    const errors = await eachLimited(pending, PARALLEL_FILES, async (p) => {
      const s = await stat(join(this.folder, p.path)).catch(() => null);
      if (!s) {
        // Gone before it finished: nothing to upload; the next pass treats the path as any other.
        this.file.pending = this.file.pending.filter((x) => x !== p);
        return;
      }
      if (s.size !== p.size || s.mtimeMs !== p.mtime_ms) {
        // Changed since: the stored parts hold old bytes; start the bytes over (the file, if created, is kept).
        Object.assign(p, { size: s.size, mtime_ms: s.mtimeMs, variant_id: null, mode: null, upload_url: null, part_size: null, upload_id: null, parts: [] });
      }
      try {
        await this.runUpload(p);
      } catch (error) {
        // Refused for good (the file deleted on the server meanwhile, rights withdrawn): the pass plans the path
        // afresh. Anything else (network, 401, 5xx) keeps the stored parts for the next try.
        const final = error instanceof ApiCallError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
        if (final) this.file.pending = this.file.pending.filter((x) => x !== p);
        throw error;
      }
    });
    return errors;
  }

  private async runUpload(p: PendingUpload): Promise<void> {
    const name = p.path;
    const mime = mimeOf(name);
    const api = this.o.api;
    if (!p.asset_id) {
      p.asset_id = (await api.createAsset(this.o.group_id, name, mime)).asset_id;
      await this.save();
    }
    if (p.variant_id) {
      const status = await api.uploadStatus(p.variant_id).catch(() => null);
      if (status?.state === "ready" && status.sha256) return this.finishUpload(p, p.variant_id, status.sha256);
      // A single PUT cannot resume (and its signed URL may have expired): a fresh version is asked for.
      if (!status || status.state === "aborted" || p.mode === "single") Object.assign(p, { variant_id: null, mode: null, upload_url: null, upload_id: null, parts: [] });
    }
    if (!p.variant_id) {
      const info = await api.createVersion(p.asset_id, this.o.group_id, name, mime, p.size, p.size >= MULTIPART_MIN_BYTES);
      p.variant_id = info.variant_id;
      p.mode = info.mode;
      p.upload_url = info.mode === "single" ? info.upload_url : null;
      p.part_size = info.mode === "multipart" ? info.part_size : null;
      await this.save();
    }
    const full = join(this.folder, name);
    if (p.mode === "single") {
      const bytes = await readFile(full);
      const res = await fetchOk(api, p.upload_url!, { method: "PUT", body: bytes, headers: { "content-type": mime } });
      await res.arrayBuffer();
    } else await this.sendParts(p, full);
    const sha256 = await this.waitReady(p.variant_id);
    await this.finishUpload(p, p.variant_id, sha256);
  }

  private async sendParts(p: PendingUpload, full: string): Promise<void> {
    const api = this.o.api;
    const variant = p.variant_id!;
    if (!p.upload_id) {
      const signed = await api.sign({ variant_id: variant, op: "create", method: "POST" });
      const xml = await (await fetchOk(api, signed.url, { method: "POST", headers: signed.headers })).text();
      const id = /<UploadId>([^<]+)<\/UploadId>/.exec(xml)?.[1];
      if (!id) throw new Error(`«${p.path}»: сервер не начал загрузку по частям`);
      p.upload_id = id;
      await this.save();
    }
    const partSize = p.part_size!;
    const count = Math.max(1, Math.ceil(p.size / partSize));
    const done = new Set(p.parts.map((x) => x.n));
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((n) => !done.has(n));
    const handle = await open(full, "r");
    try {
      const errors = await eachLimited(missing, PARALLEL_PARTS, async (n) => {
        if (this.stopped) throw new Error("остановлено");
        const length = Math.min(partSize, p.size - (n - 1) * partSize);
        const bytes = Buffer.alloc(length);
        const { bytesRead } = await handle.read(bytes, 0, length, (n - 1) * partSize);
        if (bytesRead !== length) throw new Error(`«${p.path}» изменился во время загрузки`);
        const signed = await api.sign({ variant_id: variant, op: "part", method: "PUT", upload_id: p.upload_id!, part_number: n });
        const res = await fetchOk(api, signed.url, { method: "PUT", body: bytes, headers: signed.headers });
        await res.arrayBuffer();
        const etag = res.headers.get("etag");
        if (!etag) throw new Error(`«${p.path}»: часть ${n} без ETag`);
        p.parts.push({ n, etag });
        // Every stored part is remembered at once: a restart sends only the parts not listed here.
        await this.save();
      });
      if (errors.length > 0) throw errors[0];
    } finally {
      await handle.close();
    }
    const signed = await api.sign({ variant_id: variant, op: "complete", method: "POST", upload_id: p.upload_id! });
    const parts = [...p.parts].sort((a, b) => a.n - b.n);
    const xml = `<CompleteMultipartUpload>${parts.map((x) => `<Part><PartNumber>${x.n}</PartNumber><ETag>${x.etag}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
    await (await fetchOk(api, signed.url, { method: "POST", body: xml, headers: { ...signed.headers, "content-type": "application/xml" } })).arrayBuffer();
  }

  private async waitReady(variantId: string): Promise<string> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
      const status = await this.o.api.uploadStatus(variantId);
      if (status.state === "ready" && status.sha256) return status.sha256;
      if (status.state === "aborted") throw new Error("Сервер прервал загрузку");
      if (Date.now() > deadline) throw new Error("Сервер не подтвердил загрузку вовремя");
      await sleep(delay);
    }
  }

  private async finishUpload(p: PendingUpload, variantId: string, sha256: string): Promise<void> {
    this.file.pending = this.file.pending.filter((x) => x !== p);
    this.setEntry({ path: p.path, asset_id: p.asset_id!, variant_id: variantId, size: p.size, mtime_ms: p.mtime_ms, sha256 });
    this.totals.uploaded++;
    await this.save();
  }
}

/** A request to a signed URL the API answered (no bearer: the signature authorises it); non-2xx throws. */
function fetchOk(api: ApiClient, url: string, init: RequestInit): Promise<Response> {
  return api.send(url, { ...init, auth: false });
}
