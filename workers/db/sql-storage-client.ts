/**
 * The D1 API over a SQLite-backed Durable Object's own database (`ctx.storage.sql`), so Drizzle and every repository
 * run inside a library shard unchanged (decision 043). Only what Drizzle's D1 driver and the repositories' raw
 * statements call is here: `prepare(…).bind(…)` with `all`, `first`, `raw`, `run`, and `batch`.
 *
 * Differences from D1 it hides: the storage API runs synchronously and has no BEGIN/COMMIT, so a batch runs inside
 * `transactionSync` (all or nothing, like D1's batch); it reports no `changes` or `last_row_id`, so a statement that
 * wrote rows asks SQLite's own `total_changes()`/`last_insert_rowid()` around it, in the same in-process call; a BLOB comes
 * back as an ArrayBuffer where D1 gives an array of byte values; booleans are bound as 1/0 (D1 does the same).
 */

type Bound = string | number | null | ArrayBuffer;

export function toBound(value: unknown): Bound {
  if (value === undefined) throw new TypeError("D1_TYPE_ERROR: Type 'undefined' not supported for value 'undefined'");
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") return Number(value);
  if (ArrayBuffer.isView(value)) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer;
  return value as Bound;
}

/** D1 hands BLOBs back as arrays of byte values; so does this client, so a repository reads both the same way. */
function fromStored(value: SqlStorageValue): unknown {
  return value instanceof ArrayBuffer ? Array.from(new Uint8Array(value)) : value;
}

function rowObject(columns: readonly string[], values: readonly SqlStorageValue[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((column, i) => (row[column] = fromStored(values[i])));
  return row;
}

interface Executed {
  columns: string[];
  rows: SqlStorageValue[][];
  meta: D1Meta & Record<string, unknown>;
}

/** D1's `first`: the first row, or one column of it (a column the row lacks throws, as D1 does). */
export function firstOf<T>(rows: Record<string, unknown>[], column?: string): T | null {
  const [row] = rows;
  if (!row) return null;
  if (column === undefined) return row as T;
  if (!(column in row)) throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
  return row[column] as T;
}

export class SqlStorageClient implements Pick<D1Database, "prepare" | "batch"> {
  constructor(private readonly storage: DurableObjectStorage) {}

  prepare(sql: string): SqlStorageStatement {
    return new SqlStorageStatement(this, sql, []);
  }

  /** Every statement in one transaction: the first failure undoes the others and rejects, as D1's batch does. */
  async batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return this.storage.transactionSync(() => statements.map((statement) => (statement as unknown as SqlStorageStatement).allNow<T>()));
  }

  private totalChanges(): number {
    return this.storage.sql.exec<{ n: number }>("SELECT total_changes() AS n").one().n;
  }

  /** Runs one statement now, with D1's meta. */
  execute(sql: string, params: readonly Bound[]): Executed {
    const started = performance.now();
    const totalBefore = this.totalChanges();
    const cursor = this.storage.sql.exec(sql, ...params);
    const rows = [...cursor.raw()];
    const columns = cursor.columnNames;
    let changes = 0;
    let lastRowId = 0;
    // Nothing written (a read, or a write that matched nothing) means no changes. D1 counts the rows the statement's
    // triggers changed too: SQLite's total_changes() moves by exactly that.
    if (cursor.rowsWritten > 0) {
      changes = this.totalChanges() - totalBefore;
      lastRowId = this.storage.sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id;
    }
    return {
      columns,
      rows,
      meta: {
        duration: performance.now() - started,
        size_after: this.storage.sql.databaseSize,
        rows_read: cursor.rowsRead,
        rows_written: cursor.rowsWritten,
        last_row_id: lastRowId,
        changed_db: changes > 0,
        changes,
      },
    };
  }
}

export class SqlStorageStatement implements D1PreparedStatement {
  constructor(private readonly client: SqlStorageClient, readonly sql: string, private readonly params: readonly Bound[]) {}

  /** Converts the values now, so a value D1 refuses (undefined) throws here, where D1's `bind` throws. */
  bind(...values: unknown[]): SqlStorageStatement {
    return new SqlStorageStatement(this.client, this.sql, values.map(toBound));
  }

  allNow<T>(): D1Result<T> {
    const { columns, rows, meta } = this.client.execute(this.sql, this.params);
    return { success: true, results: rows.map((values) => rowObject(columns, values) as T), meta };
  }

  async all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.allNow<T>();
  }

  async run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.allNow<T>();
  }

  async first<T = Record<string, unknown>>(column?: string): Promise<T | null> {
    return firstOf<T>(this.allNow<Record<string, unknown>>().results, column);
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  async raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<unknown[]> {
    const { columns, rows } = this.client.execute(this.sql, this.params);
    const values = rows.map((row) => row.map(fromStored)) as T[];
    return options?.columnNames ? [columns, ...values] : values;
  }
}
