// Making a library where it will live (decision 045; `npm run bench -- new-library`, or `SKIP_BUILD=1 node
// bench/new-library.mjs` after a build): `POST /api/group/create` of a top-level folder by an administrator, with
// `NEW_LIBRARIES=catalog` (a row in the catalog) and `NEW_LIBRARIES=shard` (the same row, then the library moved
// into a shard of its own before the answer), each on its own fresh `wrangler dev`; beside them the whoami floor, a
// subfolder made in the new library (routed to its shard in the second run), a folder made in that one (its id minted
// in the shard) and the folder page of the library, from the same run. 40 libraries each after 5 unmeasured (BENCH_NEW_LIBRARIES). Loopback only; servers always stopped;
// exits 0 once it has run (a benchmark is not a test).
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, login, p50p95, printTable, timed } from "./lib/measure.mjs";

const N = Number(process.env.BENCH_NEW_LIBRARIES ?? "40");
const WARM = 5;
const ROOT_GROUP_ID = "f".repeat(32);

async function run(mode) {
  const persistDir = await mkdtemp(join(tmpdir(), `bench-new-library-${mode}-`));
  const server = await startDevServer({ port: await freePort(), persistDir, vars: { NEW_LIBRARIES: mode, RATE_LIMITS: "off" } });
  try {
    const { url } = server;
    const headers = {
      authorization: `Bearer ${await login(url, server.adminLogin, server.adminPassword)}`,
      "content-type": "application/json",
    };
    const post = (path, json) => () => fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(json) });
    const times = { whoami: [], library: [], subfolder: [], nested: [], page: [] };
    for (let i = 0; i < N + WARM; i++) {
      const whoami = await timed(() => fetch(`${url}/api/auth/whoami`, { headers }));
      const library = await timed(post("/api/group/create", { parent: ROOT_GROUP_ID, group_name: `Библиотека ${mode} ${i}` }));
      const subfolder = await timed(post("/api/group/create", { parent: library.body.group_id, group_name: "Съёмки" }));
      const nested = await timed(post("/api/group/create", { parent: subfolder.body.group_id, group_name: "День 1" }));
      const page = await timed(() => fetch(`${url}/api/group/members/${library.body.group_id}?take=50`, { headers }));
      if (i < WARM) continue;
      for (const [key, value] of Object.entries({ whoami, library, subfolder, nested, page })) times[key].push(value.elapsed);
    }
    return Object.fromEntries(Object.entries(times).map(([key, list]) => [key, list.sort((a, b) => a - b)]));
  } finally {
    await server.stop();
  }
}

buildUnlessSkipped();
console.log(`new-library: ${N} libraries in each mode, load average ${loadavg()[0].toFixed(1)}`);
const catalog = await run("catalog");
const shard = await run("shard");
const labels = {
  whoami: "floor: whoami",
  library: "make a library (POST /api/group/create at the top)",
  subfolder: "make a folder in it",
  nested: "make a folder in that one (an id minted in the shard)",
  page: "its folder page",
};
printTable(
  Object.entries(labels).map(([key, label]) => [label, p50p95(catalog[key]), p50p95(shard[key])]),
  ["p50 / p95", "NEW_LIBRARIES=catalog", "NEW_LIBRARIES=shard"],
);
console.log(`load average at the end ${loadavg()[0].toFixed(1)}`);
