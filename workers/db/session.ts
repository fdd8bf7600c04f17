import { z } from "zod";
import { createDb, type Database } from "./client";
import { RoundTripMeter } from "./round-trips";

/**
 * A request's (or a background run's) own D1 session (decision 030): every query goes through
 * `env.DB.withSession(…)`, so with read replication on, reads go to a nearby replica that has at least everything
 * the session's bookmark says was seen, and the bookmark handed back lets the next request read its own writes. The
 * session is wrapped so that each call is counted (RoundTripMeter) and, in benchmarks only, delayed.
 */

/** Simulated distance to the database, per call (bench/edge.mjs). Never set in production, see `benchDelayOf`. */
export interface BenchDelay {
  primaryMs: number;
  replicaMs: number;
}

export interface DbSessionStart {
  /** a bookmark the client handed back (already shape-checked); wins over `constraint` */
  bookmark?: string | null;
  /** where the first query may go when there is no bookmark */
  constraint: D1SessionConstraint;
  delay?: BenchDelay | null;
}

/** SQL that changes data: always served by the primary. */
const WRITE_SQL = /^\s*(?:insert|update|delete|replace|create|drop|alter)\b/i;
/**
 * How the runtime refuses a bookmark it cannot honour (malformed, from another database, or older than the
 * replicas keep): the first call fails and nothing ran, so the session starts again without it.
 */
const BOOKMARK_REFUSED = /bookmark|commit.?token/i;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class DbSession {
  /** Drizzle over this session */
  readonly db: Database;
  /** The D1 API over this session, for the few raw statements (health check, cron probes) */
  readonly client: D1Database;

  private inner: D1DatabaseSession;
  private fromClientBookmark: boolean;
  private primaryFirst: boolean;
  private answered = false;

  constructor(
    private readonly binding: D1Database,
    private readonly start: DbSessionStart,
    /** shared by a request's sessions on its databases: the budgets count round trips to any of them */
    readonly meter = new RoundTripMeter(),
  ) {
    this.fromClientBookmark = !!start.bookmark;
    this.inner = binding.withSession(start.bookmark || start.constraint);
    this.primaryFirst = !start.bookmark && start.constraint === "first-primary";
    this.client = new CountedD1(this) as unknown as D1Database;
    this.db = createDb(this.client);
  }

  /** The latest bookmark of this session: what the caller should send back next time. Null before any query. */
  bookmark(): string | null {
    return this.inner.getBookmark();
  }

  /** Runs one call (a statement or a batch) against the session, counted, delayed in benchmarks, retried once without a refused bookmark. */
  async call<T>(sqls: readonly string[], run: (session: D1DatabaseSession) => Promise<T>): Promise<T> {
    const depth = this.meter.begin(sqls.length);
    try {
      const delay = this.start.delay;
      if (delay) {
        const primary = sqls.some((sql) => WRITE_SQL.test(sql)) || (this.primaryFirst && !this.answered);
        await sleep(primary ? delay.primaryMs : delay.replicaMs);
      }
      let result: T;
      try {
        result = await run(this.inner);
      } catch (error) {
        if (this.answered || !this.fromClientBookmark || !BOOKMARK_REFUSED.test(String(error))) throw error;
        this.fromClientBookmark = false;
        this.meter.bookmarkRetried = true;
        this.inner = this.binding.withSession(this.start.constraint);
        result = await run(this.inner);
      }
      this.answered = true;
      return result;
    } finally {
      this.meter.end(depth);
    }
  }
}

/**
 * The D1 API Drizzle and raw callers see. Statements keep their SQL and bindings and are prepared on the session
 * only when they run, so a retry on a fresh session (refused bookmark) can prepare them again.
 */
class CountedD1 {
  constructor(private readonly owner: DbSession) {}

  prepare(sql: string): CountedStatement {
    return new CountedStatement(this.owner, sql, []);
  }

  batch<T = unknown>(statements: CountedStatement[]): Promise<D1Result<T>[]> {
    return this.owner.call(
      statements.map((s) => s.sql),
      (session) => session.batch<T>(statements.map((s) => s.on(session))),
    );
  }
}

class CountedStatement {
  constructor(
    private readonly owner: DbSession,
    readonly sql: string,
    private readonly params: unknown[],
  ) {}

  bind(...values: unknown[]): CountedStatement {
    return new CountedStatement(this.owner, this.sql, values);
  }

  /** The real statement on a session. */
  on(session: D1DatabaseSession): D1PreparedStatement {
    const statement = session.prepare(this.sql);
    return this.params.length > 0 ? statement.bind(...this.params) : statement;
  }

  first<T = unknown>(column?: string): Promise<T | null> {
    return this.owner.call([this.sql], (s) => (column === undefined ? this.on(s).first<T>() : this.on(s).first<T>(column)));
  }

  run<T = unknown>(): Promise<D1Result<T>> {
    return this.owner.call([this.sql], (s) => this.on(s).run<T>());
  }

  all<T = unknown>(): Promise<D1Result<T>> {
    return this.owner.call([this.sql], (s) => this.on(s).all<T>());
  }

  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<T[] | [string[], ...T[]]> {
    return this.owner.call<T[] | [string[], ...T[]]>([this.sql], (s) =>
      options?.columnNames ? this.on(s).raw<T>({ columnNames: true }) : this.on(s).raw<T>(),
    );
  }
}

/**
 * Benchmark-only delays: honoured only while the `BENCH_TOKEN` var is set (the same guard as the internal-bench
 * routes: the benchmark passes it with `--var`, it is never in wrangler.toml), so a deployment never sleeps.
 */
const BenchDelaySchema = z.object({
  BENCH_TOKEN: z.string().min(16).optional().catch(undefined),
  X_BENCH_D1_DELAY_PRIMARY_MS: z.coerce.number().min(0).max(2_000).optional().catch(undefined),
  X_BENCH_D1_DELAY_REPLICA_MS: z.coerce.number().min(0).max(2_000).optional().catch(undefined),
});

export function benchDelayOf(env: Env): BenchDelay | null {
  // Read on every request: a deployment (no BENCH_TOKEN) skips the parse.
  if (!(env as { BENCH_TOKEN?: unknown }).BENCH_TOKEN) return null;
  const vars = BenchDelaySchema.parse(env);
  if (!vars.BENCH_TOKEN) return null;
  const primaryMs = vars.X_BENCH_D1_DELAY_PRIMARY_MS ?? 0;
  const replicaMs = vars.X_BENCH_D1_DELAY_REPLICA_MS ?? primaryMs;
  return primaryMs > 0 || replicaMs > 0 ? { primaryMs, replicaMs } : null;
}
