import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ApiCallError, ApiClient, type ApiTarget } from "./api-client.ts";
import { HelperError } from "./helper-error.ts";
import { MountSync } from "./mount-sync.ts";
import type { HelperStatus, MountStatus } from "./schemas.ts";
import { readState, writeState, type StateFile } from "./state-store.ts";

export interface DiskHelperOptions {
  /** the folder under which every mount gets its own folder (and the helper keeps `.mam-helper` and `.trash`) */
  root: string;
  api: ApiTarget;
  /** ms between sync passes; null: passes only when asked (the contract suite checks the HTTP calls alone) */
  intervalMs: number | null;
  watch: boolean;
  version: string;
  log?: (line: string) => void;
}

/**
 * The helper's model: the user's token (handed over by the app through POST /token and checked with whoami), the
 * mounted groups, and one MountSync per mount. Everything survives a restart through the state files under the root.
 */
export class DiskHelper {
  private readonly o: DiskHelperOptions;
  private readonly api: ApiClient;
  private state: StateFile = { token: null, mounts: [] };
  private user: HelperStatus["user"] = null;
  private readonly mounts = new Map<string, MountSync>();
  private readonly log: (line: string) => void;

  constructor(options: DiskHelperOptions) {
    this.o = options;
    this.log = options.log ?? (() => {});
    this.api = new ApiClient(options.api, () => this.state.token);
  }

  /** Reads the saved state and restarts the saved mounts (their unfinished uploads continue). */
  async start(): Promise<void> {
    await mkdir(this.o.root, { recursive: true });
    this.state = await readState(this.o.root);
    if (this.state.token) this.user = await this.api.whoami().catch(() => null);
    for (const m of this.state.mounts) await this.startMount(m.group_id, m.group_name, m.name);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.mounts.values()].map((m) => m.stop()));
  }

  status(): HelperStatus {
    const mounts = [...this.mounts.values()].map((m) => m.status());
    const rank = ["idle", "starting", "syncing", "waiting-token", "error"] as const;
    const worst = mounts.reduce((w, m) => Math.max(w, rank.indexOf(m.state)), 0);
    const sync = !this.state.token ? "no-token" : worst <= 0 ? "idle" : worst <= 2 ? "syncing" : rank[worst];
    return { version: this.o.version, root: this.o.root, user: this.user, sync: sync as HelperStatus["sync"], mounts };
  }

  /** Takes the app's token: kept only when the server accepts it (whoami). Wakes mounts that waited for one. */
  async setToken(token: string): Promise<HelperStatus> {
    const probe = new ApiClient(this.o.api, () => token);
    try {
      this.user = await probe.whoami();
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 401) throw new HelperError(401, "Сервер не принял токен: войдите в приложение заново");
      throw new HelperError(502, `Сервер недоступен: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.state = { ...this.state, token };
    await writeState(this.o.root, this.state);
    for (const m of this.mounts.values()) m.requestSync();
    return this.status();
  }

  /** Mounts a group the token may read as `<root>/<name>`; a group or folder name mounted already is a 409. */
  async mount(groupId: string, name: string): Promise<MountStatus> {
    if (!this.state.token) throw new HelperError(401, "Помощник ещё не получил токен: сначала POST /token");
    const same = this.state.mounts.find((m) => m.group_id === groupId);
    if (same) throw new HelperError(409, `Эта папка уже подключена: ${join(this.o.root, same.name)}`);
    if (this.state.mounts.some((m) => m.name.toLowerCase() === name.toLowerCase()))
      throw new HelperError(409, `Имя «${name}» уже занято другой подключённой папкой`);
    let group: { group_id: string; group_name: string };
    try {
      group = await this.api.group(groupId);
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 401) throw new HelperError(401, "Сервер не принял токен: войдите в приложение заново");
      if (error instanceof ApiCallError && (error.status === 403 || error.status === 404))
        throw new HelperError(403, "Нет доступа к этой папке: у вас нет права на чтение или папка удалена");
      throw new HelperError(502, `Сервер недоступен: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Checked again after the await: two mounts of one group sent at once must not both pass.
    if (this.mounts.has(groupId)) throw new HelperError(409, "Эта папка уже подключена");
    const sync = await this.startMount(groupId, group.group_name, name);
    this.state = { ...this.state, mounts: [...this.state.mounts, { group_id: groupId, group_name: group.group_name, name }] };
    await writeState(this.o.root, this.state);
    return sync.status();
  }

  /** The mount of a group, for tests and the CLI. */
  mountOf(groupId: string): MountSync | undefined {
    return this.mounts.get(groupId);
  }

  private async startMount(groupId: string, groupName: string, name: string): Promise<MountSync> {
    const sync = new MountSync({ root: this.o.root, group_id: groupId, group_name: groupName, name, api: this.api, intervalMs: this.o.intervalMs, watch: this.o.watch, log: this.log });
    this.mounts.set(groupId, sync);
    await sync.start();
    return sync;
  }
}
