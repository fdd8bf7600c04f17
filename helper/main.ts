// `npm run helper -- --root ~/MAM --origin https://mam.example.com`: the local disk helper (README «Помощник для
// локального диска»). Listens on 127.0.0.1 only; Ctrl+C stops it, and the next start continues where it stopped.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { readConfig, type HelperConfig } from "./config.ts";
import { DiskHelper } from "./disk-helper.ts";
import { createHelperHandler } from "./http-handler.ts";
import { listenLoopback } from "./server.ts";

/**
 * Set by `npm run helper:build` (scripts/helper-build.mjs) in the self-contained program it makes for end users: the
 * version and the app's address it was built for, so a double click starts it without flags.
 */
declare const MAM_HELPER_BUILD: { version: string; origin: string } | undefined;
const built = typeof MAM_HELPER_BUILD === "undefined" ? undefined : MAM_HELPER_BUILD;
const version =
  built?.version ?? (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Ends the program (typed for the compiler, whose `process` here is the Workers runtime's). */
function exit(code: number): never {
  process.exit(code);
  throw new Error(`exit ${code}`);
}

function configOrExit(): HelperConfig {
  try {
    return readConfig(process.argv.slice(2), { MAM_HELPER_ORIGIN: built?.origin, ...process.env });
  } catch (error) {
    console.error(`Неверные параметры: ${error instanceof z.ZodError ? z.prettifyError(error) : String(error)}`);
    console.error("Использование: npm run helper -- [--root ПАПКА] [--origin https://адрес-приложения] [--port 18981] [--api URL] [--interval СЕКУНДЫ]");
    return exit(2);
  }
}
if (process.argv.includes("--version")) {
  console.log(version);
  exit(0);
}
const config = configOrExit();

const stamp = () => new Date().toISOString().slice(11, 19);
const helper = new DiskHelper({
  root: config.root,
  api: { base: config.api, fetch: globalThis.fetch },
  intervalMs: config.intervalMs,
  watch: true,
  version,
  log: (line) => console.log(`${stamp()} ${line}`),
});
// No top-level await: the single executable runs this file bundled as CommonJS.
async function main() {
  await helper.start();
  const server = await listenLoopback(createHelperHandler(helper, { origin: config.origin, port: config.port }), config.port).catch(
    (error: NodeJS.ErrnoException): never => {
      console.error(error.code === "EADDRINUSE" ? `Порт ${config.port} занят: помощник уже запущен?` : String(error));
      return exit(1);
    },
  );
  console.log(`Помощник слушает http://127.0.0.1:${config.port} для ${config.origin}; папки в ${config.root}`);

  async function shutdown() {
    server.close();
    await helper.stop();
    process.exit(0);
  }
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}
void main();
