import { searchShardBindings, searchShardName } from "../../db/search-shards";
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { groups, sessions, users } from "../../db/schema/index";
import type { UldlServer } from "../../lib/config";
import type { Gauge } from "../../lib/metrics";
import type { RequestContext } from "../access";

export interface HealthCheck {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

async function timed(check: () => Promise<unknown>): Promise<HealthCheck> {
  const started = performance.now();
  try {
    await check();
    return { ok: true, latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      ok: false,
      latency_ms: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** Real round trips to D1 and R2; the answer says which one failed. */
export async function checkHealth(rc: RequestContext) {
  const [d1, r2] = await Promise.all([
    timed(() => rc.dbSession.client.prepare("select 1 as ok").first()),
    timed(() => rc.env.MEDIA.head("health/probe")),
  ]);
  return { status: d1.ok && r2.ok ? ("ok" as const) : ("fail" as const), checks: { d1, r2 } };
}

/** D1's size limit per database on Workers Paid (docs/scale.md): 10 GB. */
const D1_DATABASE_LIMIT_BYTES = 10_000_000_000;

/**
 * The size of each D1 database, from the `size_after` D1 reports with every query's result; a database whose answer
 * carries none (not D1) gets no gauge rather than a made-up one.
 */
async function databaseSizes(rc: RequestContext): Promise<Gauge[]> {
  const databases: [string, D1Database][] = [
    ["DB", rc.env.DB],
    ["LOGS", rc.env.LOGS],
    ...searchShardBindings(rc.env).map((d1, i): [string, D1Database] => [searchShardName(i), d1]),
  ];
  const sizes = await Promise.all(databases.map(([, d1]) => d1.prepare("select 1").run()));
  return databases.flatMap(([database], i) => {
    const bytes = sizes[i]!.meta.size_after;
    if (typeof bytes !== "number" || !(bytes > 0)) return [];
    return [
      { name: "mam_database_bytes", help: "Size of each D1 database in bytes.", value: bytes, labels: { database } },
      {
        name: "mam_database_fill_ratio",
        help: "Share of D1's 10 GB per-database limit in use; alert at 0.7, writes fail at 1 (docs/scale.md).",
        value: Number((bytes / D1_DATABASE_LIMIT_BYTES).toFixed(6)),
        labels: { database },
      },
    ];
  });
}

/** Gauges derived from the databases for /metrics: counts in one batch, each database's size beside it. */
export async function databaseGauges(rc: RequestContext): Promise<Gauge[]> {
  const now = Date.now();
  const [[u, g, s], sizes] = await Promise.all([
    rc.db.batch([
      rc.db.select({ n: count() }).from(users).where(eq(users.enabled, true)),
      rc.db.select({ n: count() }).from(groups).where(isNull(groups.deletedAt)),
      rc.db
        .select({ n: count() })
        .from(sessions)
        .where(and(isNull(sessions.usedAt), isNull(sessions.revokedAt), gt(sessions.expiresAt, now))),
    ]),
    databaseSizes(rc),
  ]);
  return [
    { name: "mam_users_enabled", help: "Enabled user accounts.", value: u[0]?.n ?? 0 },
    { name: "mam_groups", help: "Groups not in the trash, including the virtual root.", value: g[0]?.n ?? 0 },
    { name: "mam_sessions_active", help: "Sign-in sessions with a live refresh token.", value: s[0]?.n ?? 0 },
    ...sizes,
  ];
}

/** Upload/download servers: the configured list, or this origin's API when none is configured. */
export function uploadServers(rc: RequestContext, origin: string): UldlServer[] {
  return rc.config.ULDL_SERVERS.length ? rc.config.ULDL_SERVERS : [{ id: "default", url: `${origin}/api` }];
}

/**
 * Picks the reachable server with the lowest ping among the known ones; unknown ids are ignored and when none
 * answered the first configured server is the fallback. Returns null when the list names no known server.
 */
export function chooseUploadServer(servers: UldlServer[], pings: { id: string; ping: number | null }[]): string | null {
  const known = new Set(servers.map((s) => s.id));
  const candidates = pings.filter((p) => known.has(p.id));
  if (candidates.length === 0) return null;
  const reachable = candidates.filter((p): p is { id: string; ping: number } => p.ping != null && p.ping >= 0);
  if (reachable.length === 0) return servers.find((s) => candidates.some((c) => c.id === s.id))!.id;
  return reachable.reduce((best, p) => (p.ping < best.ping ? p : best)).id;
}
