import { DurableObject } from "cloudflare:workers";
import { createDb, type Database } from "../workers/db/client";
import { CATALOG_MIGRATIONS } from "../workers/db/catalog-migrations";
import { applyCatalogSchema, CATALOG_SCHEMA_SNAPSHOT } from "../workers/db/catalog-schema";
import { answerFromShard, type ShardAnswer } from "../workers/db/library-shard-call";
import {
  appendLibraryRows,
  applyGlobalStatements,
  importCrossedRows,
  importLibraryRows,
  refreshCopies,
  storeGlobals,
  type GlobalStatement,
} from "../workers/db/library-shard-import";
import { SHARED_BACKFILL, SHARED_SQL, listedElsewhere, listsShared, subtreeListsShared } from "../workers/db/library-shared-files";
import { HOLD_SQL, HoldGate } from "../workers/db/library-hold";
import { CHANGE_LOG_SQL, forgetWrittenBack, takeWriteback, type Writeback } from "../workers/db/library-writeback";
import { storeCallerCopy, type CallerCopy } from "../workers/db/repositories/caller-copy.repository";
import { entityCounts, libraryCounts, type Row, type TableRows } from "../workers/db/repositories/library-move.repository";
import { unreferencedKeys } from "../workers/db/repositories/asset.repository";
import type { Reach } from "../workers/db/repositories/library-crossing.repository";
import type { WireStatement } from "../workers/db/remote-shard-client";
import { SqlStorageClient } from "../workers/db/sql-storage-client";
import { ROOT_GROUP_ID } from "../workers/lib/ids";
import { mintingIn } from "../workers/lib/id-minting";
import { createRequestContext, type Actor, type RequestContext } from "../workers/services/access";
import { getAsset, listMembers, type AssetOptions, type AssetView, type MembersPage, type MembersQuery } from "../workers/services/library";
import { runRoutedWrite, type RoutedArgs, type RoutedValue, type RoutedWrite } from "../workers/services/routed-writes";
import {
  openShortlink,
  unlockAndOpen,
  type ClosedState,
  type LinkView,
  type SharedInfo,
  type Unlocked,
  type UnlockedPage,
  type Visitor,
} from "../workers/services/sharing";
import { SUBTREE_READS, runRoutedRead, type RoutedRead, type RoutedReadArgs, type RoutedReadValue } from "../workers/services/routed-reads";

/** A routed write's answer: its value and what the catalog must write back (decision 043, «Writes»). */
export interface Written<T> {
  value: T;
  writeback: Writeback;
}

/** What a shard reports about itself (cheap: `npm run bench -- library-shard` calls it as the floor of a shard call). */
export interface LibraryShardStats {
  /** the SQLite file's size, the figure the 10 GB per object limit applies to */
  bytes: number;
  /** catalog migrations applied */
  migrations: number;
}

/**
 * One library shard (decision 043): a SQLite-backed Durable Object holding the catalog's schema, applied from the
 * same `migrations/` files as `DB`, so every repository runs against it unchanged through `SqlStorageClient`.
 * Responsibilities: bring its schema up to date before it answers anything (a new shard takes the catalog's schema in
 * one step, decision 052; then each migration newer than that in one transaction, each recorded, so a shard that
 * stopped half-way resumes at the migration that did not finish), and run the product's
 * services against its database for a caller whose identity rides along with the call. Queries inside the object run
 * in-process: a caller pays one round trip for a call, however many statements it runs.
 */
export class LibraryShardDO extends DurableObject<Env> {
  readonly db: Database;
  /** Writes side by side, a change across alone, each in its turn (decision 049). */
  private readonly gate: HoldGate;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = createDb(new SqlStorageClient(ctx.storage));
    this.gate = new HoldGate(ctx.storage.sql);
    ctx.blockConcurrencyWhile(async () => this.migrate());
  }

  private migrate(): void {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS shard_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
    // The libraries this shard holds: a directory entry naming a shard that does not hold the library is refused.
    sql.exec("CREATE TABLE IF NOT EXISTS shard_libraries (library_id TEXT PRIMARY KEY, since INTEGER NOT NULL)");
    const applied = new Set(
      sql
        .exec<{ name: string }>("SELECT name FROM shard_migrations")
        .toArray()
        .map((row) => row.name),
    );
    if (applied.size === 0) {
      // A new shard: the schema in one step, then only the migrations newer than it (decision 052).
      this.ctx.storage.transactionSync(() => applyCatalogSchema(sql, Date.now()));
      for (const name of CATALOG_SCHEMA_SNAPSHOT.migrations) applied.add(name);
    }
    for (const migration of CATALOG_MIGRATIONS) {
      if (applied.has(migration.name)) continue;
      this.ctx.storage.transactionSync(() => {
        // Statement by statement: a file of them (the journal's triggers) may be longer than SQLite takes at once.
        for (const part of migration.sql.split("--> statement-breakpoint")) {
          if (part.replace(/^\s*--.*$/gm, "").trim()) sql.exec(part);
        }
        sql.exec("INSERT INTO shard_migrations (name, applied_at) VALUES (?, ?)", migration.name, Date.now());
      });
    }
    // After the catalog's migrations, which may recreate the tables the log's triggers are on.
    this.ctx.storage.transactionSync(() => {
      for (const statement of [...CHANGE_LOG_SQL, ...HOLD_SQL, ...SHARED_SQL]) sql.exec(statement);
      if (!applied.has(SHARED_BACKFILL.name)) {
        sql.exec(SHARED_BACKFILL.sql);
        sql.exec("INSERT INTO shard_migrations (name, applied_at) VALUES (?, ?)", SHARED_BACKFILL.name, Date.now());
      }
    });
  }

  async stats(): Promise<LibraryShardStats> {
    const { n } = this.ctx.storage.sql
      .exec<{ n: number }>("SELECT count(*) AS n FROM shard_migrations WHERE name NOT LIKE 'shard:%'")
      .one();
    return { bytes: this.ctx.storage.sql.databaseSize, migrations: n };
  }

  /** Whether this shard holds the library (a move has copied into it). */
  async holds(libraryId: string): Promise<boolean> {
    return this.ctx.storage.sql.exec("SELECT 1 FROM shard_libraries WHERE library_id = ?", libraryId).toArray().length > 0;
  }

  /** A slice of a library moving in: the rows of entities `ids` replaced by the global database's (idempotent). */
  async importEntities(libraryId: string, ids: string[], tables: TableRows[], references: TableRows[]): Promise<void> {
    this.ctx.storage.sql.exec("INSERT OR IGNORE INTO shard_libraries (library_id, since) VALUES (?, ?)", libraryId, Date.now());
    importLibraryRows(this.ctx.storage, ids, tables, references);
  }

  /**
   * A change across libraries brought in (decision 046): entities `ids` replaced (of them, those the catalog holds no
   * file or folder for, `unknown`, only if this shard holds one), files `assets` listed anew.
   */
  async importCrossed(
    libraryId: string,
    ids: string[],
    unknown: string[],
    assets: string[],
    tables: TableRows[],
    references: TableRows[],
    listings: Row[],
  ) {
    this.ctx.storage.sql.exec("INSERT OR IGNORE INTO shard_libraries (library_id, since) VALUES (?, ?)", libraryId, Date.now());
    importCrossedRows(this.ctx.storage, ids, unknown, assets, tables, references, listings);
    this.gate.working();
  }

  /**
   * A global change's statements (a tag, a classification, a field template or a person deleted: decision 050) run over
   * this shard's rows while its change across holds it, as the catalog ran them over its copy.
   */
  async applyGlobalChange(statements: GlobalStatement[]): Promise<void> {
    applyGlobalStatements(this.ctx.storage, statements);
    this.gate.working();
  }

  /** More rows of entities just imported: a big folder's listings of files, a page at a time. */
  async appendRows(tables: TableRows[]): Promise<void> {
    appendLibraryRows(this.ctx.storage, tables);
    this.gate.working();
  }

  /** Of `ids`, the folders and files this shard holds (a journaled entity may have left the library since). */
  async heldEntities(ids: string[]): Promise<string[]> {
    return this.ctx.storage.sql
      .exec<{ id: string }>(
        "SELECT id FROM groups WHERE id IN (SELECT value FROM json_each(?1)) UNION SELECT id FROM assets WHERE id IN (SELECT value FROM json_each(?1))",
        JSON.stringify(ids),
      )
      .toArray()
      .map((r) => r.id);
  }

  /** Every folder and file of its library removed (a move whose check found a difference copies it afresh). */
  async clearLibrary(): Promise<void> {
    const ids = this.ctx.storage.sql
      .exec<{ id: string }>("SELECT id FROM groups WHERE id <> ? UNION SELECT id FROM assets", ROOT_GROUP_ID)
      .toArray()
      .map((r) => r.id);
    importLibraryRows(this.ctx.storage, ids, [], []);
  }

  /** Its copies of global rows made current; answers how many it holds and updated. */
  async refreshCopies(tables: TableRows[]): Promise<number> {
    return refreshCopies(this.ctx.storage, tables);
  }

  /** Per library table, the rows of these entities here: the move's check, one slice at a time. */
  async entityCounts(ids: string[]): Promise<Record<string, number>> {
    return entityCounts(this.db.$client, ids);
  }

  /** How many folders of the library and files this shard holds (it holds one library): the check's last word. */
  async entityTotals(libraryId: string): Promise<{ folders: number; assets: number }> {
    const sql = this.ctx.storage.sql;
    return {
      folders: sql.exec<{ n: number }>("SELECT count(*) AS n FROM group_closure WHERE ancestor = ?", libraryId).one().n,
      assets: sql.exec<{ n: number }>("SELECT count(*) AS n FROM assets").one().n,
    };
  }

  /**
   * Which of these keys of a storage a file here references (`exceptAssets` left out): stored bytes are deleted only
   * when no library's file does (copies share them).
   */
  async referencedKeys(storageId: string, keys: string[], exceptAssets: string[]): Promise<string[]> {
    const unreferenced = new Set(await unreferencedKeys(this.db, storageId, keys, exceptAssets));
    return keys.filter((key) => !unreferenced.has(key));
  }

  /** How many rows `reach` chooses here: a global row's uses in this library (`countReached`). */
  async reachCount(reach: Reach): Promise<number> {
    const sql = `WITH e(id) AS (${reach.entities}) SELECT count(*) AS n FROM e`;
    return this.ctx.storage.sql.exec<{ n: number }>(sql, ...reach.binds).one().n;
  }

  /** Per library table, the rows of the library here: the move compares them with the global database's. */
  async libraryCounts(libraryId: string): Promise<Record<string, number>> {
    return libraryCounts(this.db.$client, libraryId);
  }

  /**
   * A folder's page of members, listed by the product's own service against this shard: one call for the caller
   * however many statements the listing runs (the access chain, the page, the counts). The folder page's API call
   * for a library in its shard; `npm run bench -- library-shard` measures it against the same page over D1.
   * Null for a folder that lists a file shared with another library (decision 047), and while a change across holds
   * the library (its rows may be arriving): the catalog's copy answers.
   */
  async membersPage(caller: CallerCopy, actor: Actor, groupId: string, query: MembersQuery): Promise<ShardAnswer<MembersPage | null>> {
    if (this.gate.held() || (query.type !== "group" && listsShared(this.ctx.storage.sql, groupId))) return { ok: true, value: null };
    return this.run(caller, actor, (rc) => listMembers(rc, actor, groupId, query));
  }

  /**
   * One file as the viewer asks for it (`getAsset`), read here: one call however many statements it runs. Null for a
   * file listed in another library too (who may read it depends on folders not here), and while a change across
   * holds the library: the catalog's copy answers.
   */
  async asset(caller: CallerCopy, actor: Actor, id: string, options: AssetOptions): Promise<ShardAnswer<AssetView | null>> {
    if (this.gate.held() || listedElsewhere(this.ctx.storage.sql, id)) return { ok: true, value: null };
    return this.run(caller, actor, (rc) => getAsset(rc, actor, id, options));
  }

  /**
   * A read of one folder or file — or of several of this library's — routed here (`ROUTED_READS`, decision 051): one
   * call however many statements it runs.
   * Null for a file listed in another library too, or a folder listing one (for a subtree's reads, a folder anywhere
   * below), and while a change across holds the library: the catalog's copy answers (decision 047).
   */
  async routedRead<K extends RoutedRead>(
    caller: CallerCopy,
    actor: Actor,
    name: K,
    args: RoutedReadArgs<K>,
    /** the copies of other people whose levels it answers (`userAccess`) */
    people: CallerCopy[] = [],
  ): Promise<ShardAnswer<RoutedReadValue<K> | null>> {
    const ids: string[] = Array.isArray(args[0]) ? args[0] : [args[0] as string];
    const sql = this.ctx.storage.sql;
    const shared = (id: string) =>
      listedElsewhere(sql, id) || (SUBTREE_READS.has(name) ? subtreeListsShared(sql, id) : listsShared(sql, id));
    if (this.gate.held() || ids.some(shared)) return { ok: true, value: null };
    return this.run(caller, actor, async (rc): Promise<RoutedReadValue<K>> => {
      for (const person of people) await storeCallerCopy(this.db, person, Date.now());
      return runRoutedRead(rc, actor, name, args);
    });
  }

  /**
   * A shared link to this library's file or folder opened here (decision 051, `openShortlink`): its row, its maker's
   * rights and the page's rows read, the open counted and audited, in one call; with what the catalog must be written
   * back. Null for a file listed in another library too or a folder listing one, and while a change across holds the
   * library: the catalog's copy answers.
   */
  async openLink(
    caller: CallerCopy,
    actor: Actor,
    library: string,
    linkId: string,
    itemId: string,
    view: LinkView,
  ): Promise<ShardAnswer<Written<SharedInfo | ClosedState> | null>> {
    const sql = this.ctx.storage.sql;
    if (this.gate.held() || listedElsewhere(sql, itemId) || listsShared(sql, view.folder ?? itemId)) return { ok: true, value: null };
    const answer = await this.gate.write(() =>
      this.run(caller, actor, (rc) => openShortlink(rc, linkId, view.cookie, view.visitor, view.page, view.folder)),
    );
    if (!answer.ok) return answer;
    return { ok: true, value: { value: answer.value, writeback: takeWriteback(sql, library) } };
  }

  /**
   * A password link to this library's file or folder unlocked here (`unlockAndOpen`): the password checked against
   * this shard's row, then the page opened as `openLink` does. A refusal (a wrong password, too many attempts, a
   * closed link) is part of the answer, so that the failed attempt's audit rows travel back with the writeback.
   */
  async unlockLink(
    caller: CallerCopy,
    actor: Actor,
    library: string,
    linkId: string,
    itemId: string,
    password: string,
    visitor: Visitor,
    page: UnlockedPage,
  ): Promise<ShardAnswer<Written<ShardAnswer<Unlocked>> | null>> {
    const sql = this.ctx.storage.sql;
    if (this.gate.held() || listedElsewhere(sql, itemId) || listsShared(sql, page?.folder ?? itemId)) return { ok: true, value: null };
    const answer = await this.gate.write(() => this.run(caller, actor, (rc) => unlockAndOpen(rc, linkId, password, visitor, page)));
    return { ok: true, value: { value: answer, writeback: takeWriteback(sql, library) } };
  }

  /**
   * A write to this library routed here (decision 043, «Writes»): the global rows it names stored as copies, the
   * caller's copy made current (and those of the other people whose access it decides), the product's service run
   * against this shard, and what the catalog must write back.
   */
  async routedWrite<K extends RoutedWrite>(
    caller: CallerCopy,
    actor: Actor,
    globals: TableRows[],
    library: string,
    name: K,
    args: RoutedArgs<K>,
    people: CallerCopy[],
    /** this shard's number, which the ids the write mints carry */
    shard: number,
  ): Promise<ShardAnswer<Written<RoutedValue<K>>>> {
    storeGlobals(this.ctx.storage, globals);
    for (const person of people) await storeCallerCopy(this.db, person, Date.now());
    const answer = await this.gate.write(() =>
      mintingIn(shard, () => this.run(caller, actor, (rc) => runRoutedWrite(rc, actor, name, args))),
    );
    if (!answer.ok) return answer;
    return { ok: true, value: { value: answer.value, writeback: takeWriteback(this.ctx.storage.sql, library) } };
  }

  /**
   * An operation run in the Worker over this shard's database begins (an upload, the media pipeline: their bytes stay
   * in the Worker, decision 043 «Uploads»): the global rows it names stored as copies, the caller's copy (none for the
   * pipeline) made current.
   */
  async enter(caller: CallerCopy | null, globals: TableRows[]): Promise<void> {
    storeGlobals(this.ctx.storage, globals);
    if (caller) await storeCallerCopy(this.db, caller, Date.now());
  }

  /**
   * Statements of an operation run in the Worker (`RemoteShardClient`), on this shard's database: a batch in one
   * transaction, or one statement's rows (`raw`: column names first). Only the Worker's own code reaches the object.
   * Each in its turn with changes across: an upload's commit waits for a crossing's moment instead of failing.
   */
  async statements(list: WireStatement[], mode: "batch" | "all" | "raw"): Promise<unknown> {
    const client = this.db.$client as unknown as SqlStorageClient;
    const prepared = list.map((s) => client.prepare(s.sql).bind(...s.params));
    return this.gate.write(async () => {
      if (mode === "batch") return client.batch(prepared);
      return mode === "raw" ? prepared[0].raw({ columnNames: true }) : prepared[0].all();
    });
  }

  /**
   * Uses of links to this library's files and folders counted here (the catalog refuses them: its copy is this
   * shard's to change); the change log carries the counters back to the catalog with the next writeback.
   */
  async countLinkUses(uses: { linkId: string; kind: "view" | "download"; n: number; last: number }[]): Promise<void> {
    const sql = this.ctx.storage.sql;
    await this.gate.write(async () =>
      this.ctx.storage.transactionSync(() => {
        for (const u of uses) {
          const column = u.kind === "view" ? "views" : "downloads";
          sql.exec(
            `UPDATE shortlinks SET ${column} = ${column} + ?, last_opened_at = max(coalesce(last_opened_at, 0), ?) WHERE id = ?`,
            u.n,
            u.last,
            u.linkId,
          );
        }
      }),
    );
  }

  /** What the catalog has not yet written back (the minute cron, and a write whose writeback was left behind). */
  async writeback(library: string): Promise<Writeback> {
    return takeWriteback(this.ctx.storage.sql, library);
  }

  /**
   * Held for a change across libraries (decision 046): from here its library's writes wait, or are refused, until
   * `release`; answers what the catalog has not yet written back (the change runs on the catalog's copy, which must be
   * current), or null when another change across libraries still holds it after HOLD_WAIT_MS (decision 049).
   */
  async hold(crossing: string, library: string): Promise<Writeback | null> {
    return (await this.gate.hold(crossing)) ? takeWriteback(this.ctx.storage.sql, library) : null;
  }

  /** The change across libraries has been copied in: writes are taken again, those waiting first. */
  async release(crossing: string): Promise<void> {
    this.gate.release(crossing);
  }

  /** The catalog has written back up to `seq` and these outbound rows: they are forgotten here. */
  async writtenBack(seq: number, outbound: { table: string; ids: string[] }[]): Promise<void> {
    forgetWrittenBack(this.ctx.storage, seq, outbound);
  }

  /**
   * Runs one operation for a caller: their row and groups, read from the global database by the request, are made
   * current here first (decision 043), then the operation runs with this shard as its catalog; a refusal is answered.
   */
  private async run<T>(caller: CallerCopy, actor: Actor, operation: (rc: RequestContext) => Promise<T>): Promise<ShardAnswer<T>> {
    return answerFromShard(async () => {
      if (caller.user.id !== actor.id) throw new Error("library shard: the caller's copy is not the actor's");
      await storeCallerCopy(this.db, caller, Date.now());
      const rc = { ...createRequestContext(this.env, (promise) => this.ctx.waitUntil(promise), crypto.randomUUID()), db: this.db };
      return operation(rc);
    });
  }
}
