// The filter between `wrangler dev` and the terminal of `npm start`. A newcomer reads every line wrangler prints as
// something to act on: its bindings table (twice, once per Worker), «Couldn't load fs / zlib» (the bundler probing
// Node built-ins the Workers never load), «types might be out of date» and one JSON line per queue batch. All of it
// goes to a log file under .wrangler/; the terminal keeps what needs a person: errors, with their indented details.
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** Where the full output of `npm start` goes (relative to the project). */
export const START_LOG = ".wrangler/logs/start.log";

const ANSI = /\u001b\[[0-9;]*m/g;

/** Whether a line (colours removed) opens something a person must see: an error from wrangler or from a Worker. */
export function isErrorLine(line) {
  return /✘|\[ERROR\]|\[wrangler:error\]|"level":"error"|^\s*(Uncaught|Error:)/.test(line);
}

/**
 * A line filter with memory: an error block continues over its indented lines; anything else is for the log only.
 * `push` takes a chunk of output (lines may arrive split) and answers the complete lines to show.
 */
export function createStartFilter() {
  let pending = "";
  let inError = false;
  const classify = (raw) => {
    const line = raw.replace(ANSI, "");
    if (isErrorLine(line)) {
      inError = true;
      return true;
    }
    if (inError && /^\s+\S/.test(line)) return true;
    inError = false;
    return false;
  };
  return {
    push(chunk) {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      return lines.filter(classify);
    },
    /** the last incomplete line, when the stream ends */
    flush() {
      const rest = pending;
      pending = "";
      return rest && classify(rest) ? [rest] : [];
    },
  };
}

/** Pipes a child's stdout and stderr: all to the log file, errors also to the terminal. Answers the log's path. */
export function routeOutput(child, logPath = START_LOG) {
  mkdirSync(dirname(logPath), { recursive: true });
  const log = createWriteStream(logPath, { flags: "w" });
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    const filter = createStartFilter();
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      log.write(chunk);
      for (const line of filter.push(chunk)) out.write(`${line}\n`);
    });
    stream.on("end", () => {
      for (const line of filter.flush()) out.write(`${line}\n`);
    });
  }
  return logPath;
}

/** The framed block `npm start` ends with: the address, the login, and where the rest of the output went. */
export function startBanner(port, vars, logPath = START_LOG) {
  const lines = [
    `Медиатека:     http://localhost:${port}`,
    `Логин:         ${vars.ADMIN_LOGIN}`,
    `Пароль:        ${vars.ADMIN_PASSWORD}`,
    "Данные:        .wrangler/state (D1, R2, Durable Objects, очереди)",
    `Журнал:        ${logPath} (весь вывод wrangler)`,
    "Настройки:     .dev.vars и wrangler.toml; остановка — Ctrl+C",
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const border = "─".repeat(width + 2);
  return `\n┌${border}┐\n${lines.map((line) => `│ ${line.padEnd(width)} │`).join("\n")}\n└${border}┘\n`;
}
