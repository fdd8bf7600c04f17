// npm start: .dev.vars, local D1 migrations, production build, then `wrangler dev` on http://localhost:8787 with both
// Workers (decision 032): the API Worker answers requests, the media Worker consumes the queue and decodes files.
// The output stays short: migrations are summed up in one line (wrangler prints its table once per migration),
// the build only speaks up on warnings, wrangler's own output goes to a log file (errors still reach the terminal,
// scripts/start-output.mjs), and a framed block with the address and the login ends the start-up.
import { spawn, spawnSync } from "node:child_process";
import { d1Databases, migrationFiles, seedFreshState } from "./dev-server.mjs";
import { ensureDevVars } from "./dev-vars.mjs";
import { imagesRequested, writeImagesConfig } from "./images-config.mjs";
import { writeMediaDevConfig } from "./media-config.mjs";
import { routeOutput, startBanner } from "./start-output.mjs";

const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
const port = process.env.PORT ?? "8787";
/** Where `wrangler dev` and `wrangler d1 … --local` keep local state when not told otherwise. */
const STATE_DIR = ".wrangler/state";
const READY_TIMEOUT_MS = 180_000;

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const LABELS = { DB: "База данных", LOGS: "База старых журналов", SEARCH: "Поисковый индекс" };
// Shards of the search index beyond the first (SEARCH_1, …: decision 042), when wrangler.toml binds them.
const labelOf = (binding) => LABELS[binding] ?? `Поисковый индекс, часть ${binding.replace(/^SEARCH_/, "")}`;
const appliedLine = (binding, applied) =>
  applied.length === 0
    ? `${labelOf(binding)}: все миграции уже применены.`
    : `${labelOf(binding)}: применено миграций — ${applied.length} (${
        applied.length === 1 ? applied[0] : `${applied[0]} … ${applied.at(-1)}`
      }).`;

/**
 * The databases: the hot one (DB), the old logs (LOGS, decision 038) and the search index's shards (decisions 040, 042). A first start copies the migrated template
 * the test servers use (scripts/dev-server.mjs: ~10 s once, instead of ~35 s of one wrangler start per migration);
 * state that already exists gets what it lacks from wrangler, as deployed databases do.
 */
function applyMigrations() {
  try {
    if (seedFreshState(STATE_DIR)) {
      for (const { binding, files } of migrationFiles()) console.log(appliedLine(binding, files));
      return;
    }
  } catch (error) {
    console.log(`Готовый шаблон базы не собрался (${error.message.split("\n")[0]}); миграции применит wrangler.`);
  }
  for (const { binding } of d1Databases()) applyMigrationsOf(binding);
}

function applyMigrationsOf(binding) {
  const result = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", binding, "--local"], { env, encoding: "utf8" });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.status !== 0) {
    process.stdout.write(output);
    console.error("\nМиграции базы данных не применились (вывод wrangler выше).");
    process.exit(result.status ?? 1);
  }
  console.log(appliedLine(binding, [...new Set(output.match(/\d{4}_[\w.-]+\.sql/g) ?? [])]));
}

async function waitUntilReady() {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/ping`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

const { vars, added, created } = ensureDevVars();
if (created) console.log(".dev.vars создан: администратор admin с новым паролем, новый JWT_SECRET.");
else if (added.length > 0) console.log(`.dev.vars дополнен: ${added.join(", ")} (не было или не годилось).`);
applyMigrations();
console.log("Сборка…");
run("npm", ["run", "build", "--", "--logLevel", "warn"]);

// MEDIA_IMAGES=1: previews of photos by the local Cloudflare Images stand-in (README «Optional bindings»).
const images = imagesRequested();
const config = images ? await writeImagesConfig() : "wrangler.toml";
if (images) console.log("Cloudflare Images: привязка IMAGES включена (локально — через sharp).");
// The media Worker reads only the .dev.vars next to its own config: it gets a copy of ours (scripts/media-config.mjs).
const mediaConfig = writeMediaDevConfig(".wrangler/media-worker", vars, { images });
const dev = spawn(
  "npx",
  [
    "wrangler",
    "dev",
    "--config",
    config,
    "--config",
    mediaConfig,
    "--port",
    port,
    "--ip",
    "0.0.0.0",
    "--show-interactive-dev-session=false",
  ],
  {
    stdio: ["inherit", "pipe", "pipe"],
    env,
  },
);
const logPath = routeOutput(dev);
console.log(`Запуск сервера (API и медиа-обработчик)… подробный вывод — в ${logPath}`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
if (await waitUntilReady()) console.log(startBanner(port, vars, logPath));
else console.error(`Сервер не ответил на /api/ping за ${READY_TIMEOUT_MS / 1000} с; смотрите ${logPath}.`);
