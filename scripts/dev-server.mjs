// Starts the built product under `wrangler dev` with its own state directory: what the e2e tests and the
// benchmarks run against. Both Workers run, as deployed (decision 032): the API Worker (wrangler.toml, or the
// `config` given) answers requests and the media Worker (workers/media/wrangler.toml) consumes the queue and decodes.
// Assumes `npm run build` has already produced build/.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { IMAGES_CONFIG } from "./images-config.mjs";
import { writeMediaDevConfig } from "./media-config.mjs";
import { searchShardsOf } from "./search-shards-config.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "node_modules", ".bin");

/** Environment for wrangler: offline-friendly, no telemetry, and Node 24 from node_modules first on PATH. */
function wranglerEnv() {
  return {
    ...process.env,
    PATH: `${BIN}:${process.env.PATH ?? ""}`,
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    // Miniflare's local observability capture tails every request into a trace store it never empties, and the local
    // explorer is a dashboard nobody opens here: both are the simulator's, not the product's, and both add memory per
    // request to the runtime process (decision record 028). Set them to "true" to get them back.
    X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
    X_LOCAL_EXPLORER: process.env.X_LOCAL_EXPLORER ?? "false",
  };
}

/** A TCP port on the loopback interface that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a wrangler command to completion with a time bound; throws with its output when it fails. */
function wranglerSync(args, what, timeoutMs) {
  const result = spawnSync("npx", ["wrangler", ...args], {
    cwd: ROOT,
    env: wranglerEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  if (result.status !== 0) {
    const reason = result.error ? String(result.error) : `exit code ${result.status}`;
    throw new Error(`${what} failed (${reason}):\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  }
}

const databases = new Map();
/**
 * The D1 databases and their migration folders, as a wrangler config binds them (wrangler.toml: the hot database, the
 * old logs, decision 038, and the search index, decision 040; wrangler.search-shards.toml: its shards too, decision
 * 042). Read with wrangler's own config reader, once per config.
 */
export function d1Databases(config = "wrangler.toml") {
  if (!databases.has(config)) {
    const read = createRequire(import.meta.url)("wrangler").unstable_readConfig({ config: join(ROOT, config) });
    databases.set(
      config,
      read.d1_databases.map((d) => ({ binding: d.binding, dir: join(ROOT, d.migrations_dir ?? "migrations") })),
    );
  }
  return databases.get(config);
}

/**
 * One script per database that does what `wrangler d1 migrations apply` does (each migration, then its row in
 * `d1_migrations`, in the same words wrangler uses), so a later `migrations apply` on the same state has nothing to do.
 */
function migrationScript({ dir, files }) {
  const steps = files.map(
    (name) => `${readFileSync(join(dir, name), "utf8")}\nINSERT INTO "d1_migrations" (name)\nvalues ('${name.replace(/'/g, "''")}');`,
  );
  return [
    `CREATE TABLE IF NOT EXISTS "d1_migrations"(\n\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,\n\t\tname       TEXT UNIQUE,\n\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL\n);`,
    ...steps,
  ].join("\n");
}

/**
 * A state directory with every migration applied and nothing else, made once per set of migrations and reused.
 * `wrangler d1 migrations apply` starts the local runtime once per migration file (35 s for 40 files on a 2-core
 * machine, paid by every server a test tier starts); one script per database takes ~10 s, and a copy of the result
 * takes milliseconds. The key covers the databases, their migrations and the wrangler version that wrote the files.
 */
export function migratedTemplate(timeoutMs = 120_000, config = "wrangler.toml") {
  const hash = createHash("sha256").update(
    JSON.parse(readFileSync(join(ROOT, "node_modules", "wrangler", "package.json"), "utf8")).version,
  );
  const databases = migrationFiles(config);
  for (const { binding, dir, files } of databases) {
    hash.update(binding);
    for (const name of files) hash.update(name).update(readFileSync(join(dir, name)));
  }
  const template = join(ROOT, "node_modules", ".cache", "edge-mam", `migrated-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(join(template, "v3"))) return template;
  // Built beside its final place and renamed into it, so a run stopped half-way (or another run building at the same
  // time) never leaves a half-migrated template behind.
  const building = `${template}.${process.pid}.${randomBytes(4).toString("hex")}`;
  mkdirSync(building, { recursive: true });
  try {
    for (const database of databases) {
      const file = join(building, `${database.binding}.sql`);
      writeFileSync(file, migrationScript(database));
      wranglerSync(
        ["d1", "execute", database.binding, "--local", "--persist-to", building, "--file", file, "--config", config],
        `D1 migrations (${database.binding})`,
        timeoutMs,
      );
    }
    renameSync(building, template);
  } catch (error) {
    if (!existsSync(join(template, "v3"))) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * Gives a state directory without databases a copy of the migrated template; answers whether it did (false: the
 * directory already has databases, which this leaves alone).
 */
export function seedFreshState(persistDir, timeoutMs = 120_000, config = "wrangler.toml") {
  if (existsSync(join(persistDir, "v3", "d1"))) return false;
  const template = migratedTemplate(timeoutMs, config);
  cpSync(join(template, "v3"), join(persistDir, "v3"), { recursive: true });
  writeFileSync(join(persistDir, "migrated-from"), template);
  return true;
}

/** Each database with its migration files, in the order they apply. */
export function migrationFiles(config = "wrangler.toml") {
  return d1Databases(config).map((db) => ({
    ...db,
    files: readdirSync(db.dir)
      .filter((n) => n.endsWith(".sql"))
      .sort(),
  }));
}

/**
 * Brings `persistDir`'s databases up to date: a fresh directory gets a copy of the migrated template; one that already
 * has state (a restart on the same state) gets the migrations it lacks from wrangler itself, unless it was copied
 * from the template of these very migrations.
 */
function applyMigrations(persistDir, timeoutMs, config = "wrangler.toml") {
  if (seedFreshState(persistDir, timeoutMs, config)) return;
  const marker = join(persistDir, "migrated-from");
  if (existsSync(marker) && readFileSync(marker, "utf8") === migratedTemplate(timeoutMs, config)) return;
  for (const { binding } of d1Databases(config)) {
    wranglerSync(
      ["d1", "migrations", "apply", binding, "--local", "--persist-to", persistDir, "--config", config],
      `D1 migrations (${binding})`,
      timeoutMs,
    );
  }
}

/**
 * A password as workers/lib/password.ts stores it (`pbkdf2-sha256$<iterations>$<salt>$<hash>`, base64), made with
 * Node's crypto for rows written straight into the database.
 */
export function storedPasswordHash(password) {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, 100_000, 32, "sha256");
  return `pbkdf2-sha256$100000$${salt.toString("base64")}$${hash.toString("base64")}`;
}

/** The row workers/services/access/bootstrap.service.ts writes for ADMIN_LOGIN / ADMIN_PASSWORD on a fresh database. */
function administratorSql(login, password) {
  const now = Date.now();
  // A time-ordered id in the product's format (workers/lib/ids.ts): 48 bits of milliseconds, version 7, random rest.
  const random = randomBytes(9).toString("hex");
  const id = `${now.toString(16).padStart(12, "0")}7${random.slice(0, 3)}8${random.slice(3)}`;
  const text = (value) => `'${String(value).replace(/'/g, "''")}'`;
  return `INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
VALUES (${text(id)}, ${text(login)}, 'Администратор', ${text(storedPasswordHash(password))}, 1, 0, 1, '[]', ${now}, ${now});`;
}

function executeSql(persistDir, sql, timeoutMs) {
  const file = join(persistDir, "seed.sql");
  writeFileSync(file, sql);
  wranglerSync(["d1", "execute", "DB", "--local", "--persist-to", persistDir, "--file", file], "D1 seed", timeoutMs);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a signal to the whole process group led by `pid`; false when the group is already gone. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True when something already accepts connections on 127.0.0.1:`port`. */
function portInUse(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.setTimeout(1_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Spawns `wrangler dev` and waits for the first 200 on /api/health; on failure the process group is stopped. */
async function launch({ port, persistDir, adminLogin, adminPassword, jwtSecret, vars, startTimeoutMs, logPath, config }) {
  // Never mistake another server (another run, `npm start`) for ours.
  if (await portInUse(port)) throw new Error(`startDevServer: port ${port} on 127.0.0.1 is already in use`);
  // BENCH_INSPECTOR_PORT pins the inspector too (engineers sharing a machine are each given a range of ports).
  const inspectorPort = Number(process.env.BENCH_INSPECTOR_PORT) || (await freePort());
  // The media Worker gets the same secrets and overrides through its own .dev.vars (scripts/media-config.mjs).
  const mediaConfig = writeMediaDevConfig(
    join(persistDir, "media-worker"),
    {
      ADMIN_LOGIN: adminLogin,
      ADMIN_PASSWORD: adminPassword,
      JWT_SECRET: jwtSecret,
      ...(process.env.RATE_LIMITS ? { RATE_LIMITS: process.env.RATE_LIMITS } : {}),
      ...vars,
    },
    {
      images: config === IMAGES_CONFIG,
      searchShards: searchShardsOf(d1Databases(config).map((d) => d.binding)).length,
    },
  );
  const args = [
    "wrangler",
    "dev",
    "--config",
    config ?? "wrangler.toml",
    "--config",
    mediaConfig,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    persistDir,
    "--var",
    `ADMIN_LOGIN:${adminLogin}`,
    "--var",
    `ADMIN_PASSWORD:${adminPassword}`,
    "--var",
    `JWT_SECRET:${jwtSecret}`,
    // benchmarks measure the product, not its rate limits (bench/lib/measure.mjs sets RATE_LIMITS=off)
    ...(process.env.RATE_LIMITS ? ["--var", `RATE_LIMITS:${process.env.RATE_LIMITS}`] : []),
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    "--show-interactive-dev-session=false",
  ];

  const log = createWriteStream(logPath, { flags: "a" });
  let tail = "";
  const record = (chunk) => {
    log.write(chunk);
    tail = (tail + chunk.toString()).slice(-8000);
  };

  const spawnedAt = performance.now();
  // detached: wrangler runs in its own process group so stop() can end npx, wrangler and workerd together.
  const child = spawn("npx", args, { cwd: ROOT, env: wranglerEnv(), stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.stdout.on("data", record);
  child.stderr.on("data", record);
  let exited = false;
  const exitedPromise = new Promise((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );

  // If this process dies without calling stop(), do not leave workerd behind.
  const killOnExit = () => signalGroup(child.pid, "SIGKILL");
  process.once("exit", killOnExit);

  let stopping;
  // "SIGKILL" kills wrangler and workerd on the spot (a crash, for fault tests); the default lets them shut down.
  const stop = (signal) => {
    stopping ??= (async () => {
      process.removeListener("exit", killOnExit);
      // anything but "SIGKILL" (also whatever a caller passing `stop` as a callback hands it) is the graceful stop
      if (signalGroup(child.pid, signal === "SIGKILL" ? "SIGKILL" : "SIGTERM")) {
        await Promise.race([exitedPromise, sleep(5_000)]);
        // workerd may outlive the npx leader: make sure the group is gone.
        await sleep(200);
        signalGroup(child.pid, "SIGKILL");
      }
      await Promise.race([exitedPromise, sleep(2_000)]);
      await new Promise((resolve) => log.end(resolve));
    })();
    return stopping;
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  try {
    for (;;) {
      if (exited) throw new Error(`wrangler dev exited with code ${child.exitCode} before /api/health answered`);
      if (Date.now() > deadline) throw new Error(`wrangler dev did not answer 200 on /api/health within ${startTimeoutMs} ms`);
      try {
        const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
        await response.arrayBuffer();
        if (response.status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
  } catch (error) {
    await stop();
    error.message += `\n--- wrangler dev output (tail, full log in ${logPath}) ---\n${tail}`;
    throw error;
  }
  return { url, inspectorPort, coldStartMs: performance.now() - spawnedAt, output: () => tail, stop };
}

/**
 * Applies the D1 migrations into `persistDir`, starts `wrangler dev` on 127.0.0.1:`port` with a known administrator
 * and JWT secret (`--var` overrides .dev.vars, which may or may not exist), and waits for `GET /api/health` to
 * answer 200. That first request bootstraps the administrator.
 *
 * With `seedSql`, the SQL runs against the fresh database before the start, after a row for the administrator as the
 * bootstrap would write it (the bootstrap only creates one while the users table is empty).
 *
 * @param {object} options
 * @param {number} options.port port to listen on (loopback only); must be free
 * @param {string} options.persistDir fresh directory for D1/R2/DO state
 * @param {string} [options.adminLogin] defaults to "admin"
 * @param {string} [options.adminPassword] defaults to a random password
 * @param {string} [options.jwtSecret] defaults to a random secret; pass the previous one to restart on the same state
 *   with the sessions and signed links still valid (as a production restart keeps its secret)
 * @param {string} [options.seedSql] SQL to run before the start, once the administrator exists (e.g. more users)
 * @param {(persistDir: string) => void} [options.afterSeed] runs after the seed, before the start (e.g. a bench writing
 *   the search index of what it seeded into the SEARCH database's file)
 * @param {Record<string, string>} [options.vars] more Worker vars, passed as `--var NAME:value` (e.g. BENCH_TOKEN)
 * @param {number} [options.startTimeoutMs] bound on each wait for the first 200 (default 120 s)
 * @param {number} [options.migrateTimeoutMs] bound on the migration and seed steps (default 120 s)
 * @param {string} [options.logFile] where wrangler's output goes (default `<persistDir>/wrangler-dev.log`)
 * @param {string} [options.config] another wrangler config for `wrangler dev` (e.g. wrangler.images.toml, the same
 *   bindings plus `IMAGES`: scripts/images-config.mjs); migrations always come from wrangler.toml
 * @returns {Promise<{ url: string, inspectorPort: number, adminLogin: string, adminPassword: string, jwtSecret: string, coldStartMs: number, migrateMs: number, logFile: string, output: () => string, stop: (signal?: "SIGTERM" | "SIGKILL") => Promise<void> }>}
 * @example
 *   const server = await startDevServer({ port: 8799, persistDir: await mkdtemp(join(tmpdir(), "mam-")) });
 *   try { await fetch(`${server.url}/api/health`); } finally { await server.stop(); }
 */
export async function startDevServer({
  port,
  persistDir,
  adminLogin = "admin",
  adminPassword = randomBytes(12).toString("base64url"),
  jwtSecret = randomBytes(48).toString("base64url"), // 64 characters
  seedSql,
  afterSeed,
  vars = {},
  startTimeoutMs = 120_000,
  migrateTimeoutMs = 120_000,
  logFile,
  config,
}) {
  if (!Number.isInteger(port) || port <= 0) throw new Error(`startDevServer: invalid port ${port}`);
  if (!persistDir) throw new Error("startDevServer: persistDir is required");
  if (!existsSync(join(ROOT, "build", "server", "index.js")) || !existsSync(join(ROOT, "build", "client"))) {
    throw new Error("startDevServer: build/ is missing; run `npm run build` first");
  }
  for (const name of Object.keys(vars)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new Error(`startDevServer: invalid var name ${name}`);
  }
  mkdirSync(persistDir, { recursive: true });

  const migrateStarted = performance.now();
  applyMigrations(persistDir, migrateTimeoutMs, config);
  const migrateMs = performance.now() - migrateStarted;

  const options = {
    port,
    persistDir,
    adminLogin,
    adminPassword,
    jwtSecret,
    vars,
    startTimeoutMs,
    logPath: logFile ?? join(persistDir, "wrangler-dev.log"),
    config,
  };
  // A seed goes in before the one start, behind the administrator the bootstrap would have made (it only makes one
  // while the users table is empty): a start with a stop, a seed and a second start cost ~20 s more.
  if (seedSql) executeSql(persistDir, `${administratorSql(adminLogin, adminPassword)}\n${seedSql}`, migrateTimeoutMs);
  afterSeed?.(persistDir);
  const server = await launch(options);
  const { coldStartMs } = server;
  return {
    url: server.url,
    inspectorPort: server.inspectorPort,
    adminLogin,
    adminPassword,
    jwtSecret,
    coldStartMs,
    migrateMs,
    logFile: options.logPath,
    output: server.output,
    stop: server.stop,
  };
}
