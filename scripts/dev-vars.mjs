// Creates .dev.vars (git-ignored) with a generated admin password and JWT secret, and completes an existing file
// that lacks them: without a JWT secret of 32+ characters every request of `wrangler dev` would answer 500.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const path = new URL("../.dev.vars", import.meta.url);
const MIN_SECRET_LENGTH = 32;

/** What a missing or unusable variable is replaced with, by name. */
const GENERATED = {
  ADMIN_LOGIN: () => "admin",
  ADMIN_PASSWORD: () => randomBytes(12).toString("base64url"),
  JWT_SECRET: () => randomBytes(48).toString("base64url"),
};

function usable(name, value) {
  if (value === undefined || value === "") return false;
  return name !== "JWT_SECRET" || value.length >= MIN_SECRET_LENGTH;
}

/** Parses KEY=value lines; comments and blank lines are kept out. */
export function parseDevVars(text) {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1).trim()]),
  );
}

/** Adds to .dev.vars text what it lacks; `added` names the variables this wrote (pure, for the unit test). */
export function completeDevVars(text) {
  const vars = parseDevVars(text);
  const added = [];
  for (const [name, generate] of Object.entries(GENERATED)) {
    if (usable(name, vars[name])) continue;
    const line = `${name}=${(vars[name] = generate())}`;
    const pattern = new RegExp(`^${name}=.*$`, "m");
    text = pattern.test(text) ? text.replace(pattern, line) : `${text}${text && !text.endsWith("\n") ? "\n" : ""}${line}\n`;
    added.push(name);
  }
  return { text, vars, added };
}

/** Returns the variables in .dev.vars after creating the file, or adding to it what it lacks. */
export function ensureDevVars() {
  const existed = existsSync(path);
  const { text, vars, added } = completeDevVars(existed ? readFileSync(path, "utf8") : "");
  if (added.length > 0) writeFileSync(path, text, { mode: 0o600 });
  return { vars, added, created: !existed };
}
