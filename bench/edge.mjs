// The edge benchmark (issue 27; `npm run bench -- edge`, or `SKIP_BUILD=1 node bench/edge.mjs` after a build):
// what a user far from the database waits for on the main screens and API calls. The product runs under
// `wrangler dev` twice on the same state: once with a simulated distance to D1 (every round trip sleeps
// X_BENCH_D1_DELAY_PRIMARY_MS at the primary, X_BENCH_D1_DELAY_REPLICA_MS at a replica; the Worker honours them only
// while BENCH_TOKEN is set, see workers/db/session.ts) and once with none. For each route it prints the median wait
// with the delay beside the same call without it, the round trips the answer's Server-Timing reports, and /api/ping
// (no database) from the same run as the floor.
//
// "Before" (main before issue 27) is NOT run: it is modelled as the route's time without delay plus its round
// trips on main (workers/lib/round-trip-budget.ts `before`, measured by the same counter) × the primary delay,
// because main had no sessions and sent every query to the primary. "After (model)" applies the same model to
// today's counts, so the modelled and measured "after" can be compared.
//
// The client behaves like the product's: it signs in, then sends back the x-d1-bookmark of the previous answer.
// Env: EDGE_PRIMARY_MS (default 80), EDGE_REPLICA_MS (default 5), EDGE_ROUNDS (default 15 calls per route).
// Loopback only; the server is always stopped. Exits 0 once it has run (a benchmark is not a test).
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { ROOT_GROUP_ID } from "./lib/library-seed.mjs";
import { buildUnlessSkipped, login, ms, signIn } from "./lib/measure.mjs";

const PRIMARY_MS = Number(process.env.EDGE_PRIMARY_MS ?? "80");
const REPLICA_MS = Number(process.env.EDGE_REPLICA_MS ?? "5");
const ROUNDS = Math.max(3, Number(process.env.EDGE_ROUNDS ?? "15"));

/** Main's round trips per route, as workers/lib/round-trip-budget.ts records them (kept in step by hand: a .ts file). */
const BEFORE = {
  ping: 0,
  whoami: 2,
  members: 6,
  groupInfo: 5,
  assetInfo: 5,
  searchApi: 6,
  searchApiCold: 6,
  // not measured on main separately: as for the small library
  searchApiColdMany: 6,
  loginPage: 0,
  folderPage: 4,
  viewerPage: 4,
  searchPage: 2,
  shortlinkPage: 5,
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const tripsOf = (timing) => Number(/db;dur=[\d.]+;desc="(\d+) round trips?/.exec(timing ?? "")?.[1] ?? NaN);

async function api(url, path, { bearer, method = "GET", json } = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text;
}

/** Files of one name word, more than a page and more than a total counts exactly: the search that counts its total. */
const MANY = 1100;

/**
 * A reader with a rule two levels up, a folder of 20 sub-folders and 30 files, one file, a link to it; beside them a
 * folder of MANY files sharing a word.
 */
async function seed(url, adminBearer) {
  const group = async (name, parent = ROOT_GROUP_ID) => (await api(url, "/api/group/create", { bearer: adminBearer, method: "POST", json: { parent, group_name: name } })).group_id;
  const top = await group(`Проект ${randomBytes(3).toString("hex")}`);
  const mid = await group("Съёмка", top);
  const leaf = await group("Исходники", mid);
  for (let i = 0; i < 20; i++) await group(`Дубль ${i}`, leaf);
  let asset;
  for (let i = 0; i < 30; i++) {
    const created = await api(url, "/api/asset/create", { bearer: adminBearer, method: "POST", json: { in_group: leaf, asset_name: `закат-${i}.mp4`, asset_mime: "video/mp4" } });
    asset ??= created.asset_id;
  }
  const many = await group("Рассветы", top);
  for (let i = 0; i < MANY; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, MANY - i) }, (_, k) =>
        api(url, "/api/asset/create", {
          bearer: adminBearer,
          method: "POST",
          json: { in_group: many, asset_name: `рассвет-${i + k}.jpg`, asset_mime: "image/jpeg" },
        }),
      ),
    );
  }
  const password = randomBytes(12).toString("base64url");
  const login_ = `edge-reader-${randomBytes(3).toString("hex")}`;
  const user = await api(url, "/api/user", { bearer: adminBearer, method: "POST", json: { user_name: "Читатель", user_login: login_, user_passwd: password, enabled: true } });
  await api(url, "/api/user/acl", { bearer: adminBearer, method: "POST", json: { subj: user.user_id, obj: top, acl: ["read", "download"] } });
  const link = /\/sl\/([A-Za-z0-9_-]{22})$/.exec(await api(url, `/api/sl/create/${asset}`, { bearer: adminBearer, method: "POST", json: {} }))[1];
  return { leaf, asset, link, reader: { login: login_, password } };
}

function routes(world) {
  const q = encodeURIComponent("закат");
  return [
    ["ping", "GET /api/ping (floor)", "/api/ping", "anonymous"],
    ["whoami", "GET /api/auth/whoami", "/api/auth/whoami", "api"],
    ["members", "GET /api/group/members/{id}", `/api/group/members/${world.leaf}`, "api"],
    ["groupInfo", "GET /api/group/get/{id}", `/api/group/get/${world.leaf}`, "api"],
    ["assetInfo", "GET /api/asset/{id}", `/api/asset/${world.asset}`, "api"],
    ["searchApi", "GET /api/search/query/{x}", `/api/search/query/${q}`, "api"],
    // Another page size each round: a key the answer cache (decision 031) has not seen, so the index is asked.
    ["searchApiCold", "GET /api/search/query/{x} (not cached)", (round) => `/api/search/query/${q}?take=${10 + round}`, "api"],
    [
      "searchApiColdMany",
      `GET /api/search/query/{x} (not cached, ${MANY} matches)`,
      (round) => `/api/search/query/${encodeURIComponent("рассвет")}?take=${10 + round}`,
      "api",
    ],
    ["loginPage", "page /login", "/login", "anonymous"],
    ["folderPage", "page /mam/{id}", `/mam/${world.leaf}`, "page"],
    ["viewerPage", "page /mam/{g}/asset/{id}", `/mam/${world.leaf}/asset/${world.asset}`, "page"],
    ["searchPage", "page /search?q=", `/search?q=${q}`, "page"],
    ["shortlinkPage", "page /sl/{id}", `/sl/${world.link}`, "anonymous"],
  ];
}

/** The operator's metrics token of the measured server, sent as `x-timing-key` (workers/lib/server-timing.ts). */
const TIMING_KEY = randomBytes(24).toString("base64url");

/** Median wait and round trips of each route, called ROUNDS times in turn (interleaved), as the reader. */
async function measureAll(url, world, who) {
  const bookmark = { value: null };
  const samples = new Map();
  const trips = new Map();
  const list = routes(world);
  for (let round = 0; round < ROUNDS + 2; round++) {
    for (const [key, , pathOf, kind] of list) {
      const path = typeof pathOf === "function" ? pathOf(round) : pathOf;
      // the reader gets the database detail of Server-Timing only with the operator's key
      const headers = { "x-timing-key": TIMING_KEY };
      if (kind === "api") headers.authorization = `Bearer ${who.bearer}`;
      if (kind === "page") headers.cookie = who.cookie;
      if (kind !== "anonymous" && bookmark.value) headers["x-d1-bookmark"] = bookmark.value;
      const started = performance.now();
      const res = await fetch(`${url}${path}`, { headers, redirect: "manual", signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer();
      const took = performance.now() - started;
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      if (kind !== "anonymous") bookmark.value = res.headers.get("x-d1-bookmark") ?? bookmark.value;
      // the first two rounds warm up modules, isolates and Durable Objects
      if (round < 2) continue;
      samples.set(key, [...(samples.get(key) ?? []), took]);
      trips.set(key, tripsOf(res.headers.get("server-timing")));
    }
  }
  return new Map(list.map(([key]) => [key, { ms: median(samples.get(key)), trips: trips.get(key) }]));
}

async function run(label, vars, persistDir, jwtSecret, adminPassword, prepare) {
  const port = await freePort();
  const server = await startDevServer({ port, persistDir, jwtSecret, adminPassword, vars: { BENCH_TOKEN: randomBytes(24).toString("base64url"), METRICS_TOKEN: TIMING_KEY, ...vars } });
  try {
    const world = await prepare(server);
    console.log(`> ${label}: measuring ${ROUNDS} rounds`);
    return { world, figures: await measureAll(server.url, world, await signIn(server.url, world.reader.login, world.reader.password)) };
  } finally {
    await server.stop();
  }
}

async function main() {
  buildUnlessSkipped();
  const loadAtStart = loadavg().map((l) => l.toFixed(2)).join(" ");
  const persistDir = await mkdtemp(join(tmpdir(), "mam-edge-"));
  const jwtSecret = randomBytes(48).toString("base64url");
  const adminPassword = randomBytes(12).toString("base64url");
  let world;
  const far = await run(
    `far user (primary ${PRIMARY_MS} ms, replica ${REPLICA_MS} ms a round trip)`,
    { X_BENCH_D1_DELAY_PRIMARY_MS: String(PRIMARY_MS), X_BENCH_D1_DELAY_REPLICA_MS: String(REPLICA_MS) },
    persistDir,
    jwtSecret,
    adminPassword,
    async (server) => (world = await seed(server.url, await login(server.url, server.adminLogin, server.adminPassword))),
  );
  const near = await run("no delay", {}, persistDir, jwtSecret, adminPassword, async () => world);

  const header = ["route", "trips now", "trips main", "no delay", "far, now (measured)", "far, now (model)", "far, main (model)"];
  const rows = routes(world).map(([key, label]) => {
    const f = far.figures.get(key);
    const n = near.figures.get(key);
    return [
      label,
      String(f.trips),
      String(BEFORE[key]),
      ms(n.ms),
      ms(f.ms),
      ms(n.ms + f.trips * PRIMARY_MS),
      ms(n.ms + BEFORE[key] * PRIMARY_MS),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows) console.log(line(row));
  console.log(
    `\nmedian of ${ROUNDS} calls per route, loopback, as a non-admin reader sending back its bookmark; floor = /api/ping of the same run.` +
      `\n"far, now (model)" charges every round trip the primary's ${PRIMARY_MS} ms; the measured figure is lower when reads reach the replica.` +
      `\n"far, main (model)" = no-delay time + main's round trips × ${PRIMARY_MS} ms (main had no sessions: every query at the primary).` +
      `\nload average at start ${loadAtStart}, at end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (shared machine).`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
