// Creates .dev.vars (git-ignored) with a generated admin password and JWT secret when it is missing.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const path = new URL("../.dev.vars", import.meta.url);

/** Returns the variables in .dev.vars, creating the file first when it does not exist. */
export function ensureDevVars() {
  if (!existsSync(path)) {
    const password = randomBytes(12).toString("base64url");
    const secret = randomBytes(48).toString("base64url");
    writeFileSync(path, `ADMIN_LOGIN=admin\nADMIN_PASSWORD=${password}\nJWT_SECRET=${secret}\n`, { mode: 0o600 });
  }
  return Object.fromEntries(
    readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}
