// `npm run bench -- review` (issue «work together on media»): the two figures of the team's review work, each beside
// its floor from the same product run — a collection of 10,000 items paged at skip 9,950 against a folder page of the
// same size (bench/review-collections.mjs, target ≤ 1.5×), and 1,000 comments of one file listed against whoami
// (bench/review-comments.mjs, target ≤ 2×). Each part starts its own product; a part that cannot run is reported
// and the other still runs.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
let failed = false;
for (const part of ["review-collections", "review-comments"]) {
  console.log(`\n--- ${part} ---`);
  const run = spawnSync(process.execPath, [`bench/${part}.mjs`], { cwd: ROOT, stdio: "inherit", env: { ...process.env, SKIP_BUILD: "1" } });
  if (run.status !== 0) {
    console.log(`bench/${part}.mjs exited with ${run.status ?? run.signal}`);
    failed = true;
  }
}
process.exitCode = failed ? 1 : 0;
