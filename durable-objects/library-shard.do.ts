import { DurableObject } from "cloudflare:workers";
import { createDb, type Database } from "../workers/db/client";
import { CATALOG_MIGRATIONS } from "../workers/db/catalog-migrations";
import { SqlStorageClient } from "../workers/db/sql-storage-client";

/** What a shard reports about itself: the figures `npm run bench -- shard` prints per shard. */
export interface LibraryShardStats {
  /** the SQLite file's size, the figure the 10 GB per object limit applies to */
  bytes: number;
  migrations: number;
  assets: number;
  groups: number;
}

/**
 * One library shard (decision 043): a SQLite-backed Durable Object holding the catalog's schema, applied from the
 * same `migrations/` files as `DB`, so every repository runs against it unchanged through `SqlStorageClient`.
 * Responsibilities: bring its schema up to date before it answers anything (each migration in one transaction, each
 * recorded, so a shard that stopped half-way resumes at the migration that did not finish), and hand its database to
 * the code that runs inside it. Queries inside the object run in-process: a caller pays one round trip for a call,
 * however many statements it runs.
 */
export class LibraryShardDO extends DurableObject<Env> {
  readonly db: Database;
  private readonly client: SqlStorageClient;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.client = new SqlStorageClient(ctx.storage);
    this.db = createDb(this.client);
    ctx.blockConcurrencyWhile(async () => this.migrate());
  }

  private migrate(): void {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS shard_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
    const applied = new Set(
      sql
        .exec<{ name: string }>("SELECT name FROM shard_migrations")
        .toArray()
        .map((row) => row.name),
    );
    for (const migration of CATALOG_MIGRATIONS) {
      if (applied.has(migration.name)) continue;
      this.ctx.storage.transactionSync(() => {
        sql.exec(migration.sql);
        sql.exec("INSERT INTO shard_migrations (name, applied_at) VALUES (?, ?)", migration.name, Date.now());
      });
    }
  }

  async stats(): Promise<LibraryShardStats> {
    const count = (table: string) => this.ctx.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n;
    return {
      bytes: this.ctx.storage.sql.databaseSize,
      migrations: count("shard_migrations"),
      assets: count("assets"),
      groups: count("groups"),
    };
  }
}
