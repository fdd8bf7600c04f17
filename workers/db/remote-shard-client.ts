import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { firstOf, toBound } from "./sql-storage-client";

/** A statement as it crosses to a library shard: its text and its bound values. */
export interface WireStatement {
  sql: string;
  params: unknown[];
}

type Shard = Pick<LibraryShardDO, "statements">;

/**
 * The D1 API over a library shard's database, from the Worker (decision 043, «Uploads»): each statement, or batch,
 * is one call to the shard, which runs it on its own database (a batch in one transaction, as D1 does). For the
 * operations whose bytes must stay in the Worker — an upload streams and hashes in the Worker and writes its storage
 * from there — while their rows live in the shard; everything else that reaches a shard is one call however many
 * statements it runs (`routedWrite`, the reads). Only what Drizzle's D1 driver and the repositories call is here.
 */
export class RemoteShardClient implements Pick<D1Database, "prepare" | "batch"> {
  constructor(private readonly shard: Shard) {}

  prepare(sql: string): RemoteShardStatement {
    return new RemoteShardStatement(this.shard, sql, []);
  }

  async batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const wire = statements.map((s) => (s as unknown as RemoteShardStatement).wire());
    return (await this.shard.statements(wire, "batch")) as D1Result<T>[];
  }
}

export class RemoteShardStatement implements D1PreparedStatement {
  constructor(private readonly shard: Shard, private readonly sql: string, private readonly params: unknown[]) {}

  /** Converts the values now, so a value D1 refuses (undefined) throws here, where D1's `bind` throws. */
  bind(...values: unknown[]): RemoteShardStatement {
    return new RemoteShardStatement(this.shard, this.sql, values.map(toBound));
  }

  wire(): WireStatement {
    return { sql: this.sql, params: this.params };
  }

  async all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return (await this.shard.statements([this.wire()], "all")) as D1Result<T>;
  }

  run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.all<T>();
  }

  async first<T = Record<string, unknown>>(column?: string): Promise<T | null> {
    return firstOf<T>((await this.all<Record<string, unknown>>()).results, column);
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  async raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<unknown[]> {
    const [columns, ...rows] = (await this.shard.statements([this.wire()], "raw")) as [string[], ...T[]];
    return options?.columnNames ? [columns, ...rows] : rows;
  }
}
