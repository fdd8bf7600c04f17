// npm start: .dev.vars, local D1 migrations, production build, then `wrangler dev` on http://localhost:8787.
import { spawn, spawnSync } from "node:child_process";
import { ensureDevVars } from "./dev-vars.mjs";

const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const vars = ensureDevVars();
run("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local"]);
run("npm", ["run", "build"]);

const port = process.env.PORT ?? "8787";
console.log(`\n  Медиатека: http://localhost:${port}\n  Вход администратора: ${vars.ADMIN_LOGIN} / ${vars.ADMIN_PASSWORD}\n  (из .dev.vars; администратор создаётся при первом запросе, если пользователей ещё нет)\n`);
const dev = spawn("npx", ["wrangler", "dev", "--port", port, "--ip", "0.0.0.0", "--show-interactive-dev-session=false"], { stdio: "inherit", env });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
