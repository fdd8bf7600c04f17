// Changes across libraries (decision 046; `npm run bench -- crossing`, or `SKIP_BUILD=1 node bench/crossing.mjs` after
// a build): a file moved between two libraries and back, beside a move between two folders of one library and a
// rename, the reads of a folder listing a file of the other library and of that file (decision 047), and a new version
// of a file of one library and of one listed in both (its body received with the libraries let go, decision 048), and
// an office editor's save of each (WOPI PutFile: in the library's shard, across only for the second), and renames in
// one library while files cross between the two (how many were refused, how long the others took), with both
// libraries in the catalog (`NEW_LIBRARIES=catalog`: plain catalog writes) and with each in a shard of its own
// (`NEW_LIBRARIES=shard`: the move across runs in the catalog with both shards held, then is copied into them), each on
// its own fresh `wrangler dev`, the whoami floor from the same run. 40 rounds each after 5 unmeasured
// (BENCH_CROSSINGS); last, a tag on 500 files of A deleted (BENCH_TAGGED, decision 050). Loopback only; servers always
// stopped; exits 0 once it has run (a benchmark is not a test).
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, login, p50p95, printTable, timed } from "./lib/measure.mjs";

const N = Number(process.env.BENCH_CROSSINGS ?? "40");
const WARM = 5;
const TAGGED = Number(process.env.BENCH_TAGGED ?? "500");
const TAG_ROUNDS = 5;
const ROOT_GROUP_ID = "f".repeat(32);

async function run(mode) {
  const persistDir = await mkdtemp(join(tmpdir(), `bench-crossing-${mode}-`));
  const server = await startDevServer({ port: await freePort(), persistDir, vars: { NEW_LIBRARIES: mode, RATE_LIMITS: "off" } });
  try {
    const { url } = server;
    const bearer = `Bearer ${await login(url, server.adminLogin, server.adminPassword)}`;
    const headers = { authorization: bearer, "content-type": "application/json" };
    const send = (method, path, json) => () =>
      fetch(`${url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    const folder = async (name, parent = ROOT_GROUP_ID) =>
      (await timed(send("POST", "/api/group/create", { parent, group_name: name }))).body.group_id;
    const [a, b] = [await folder("Съёмки"), await folder("Архив")];
    const [a1, a2] = [await folder("День 1", a), await folder("День 2", a)];
    const file = (
      await timed(
        () =>
          fetch(`${url}/api/asset/upload?${new URLSearchParams({ in_group: a1, name: "кадр.txt" })}`, {
            method: "POST",
            headers: { authorization: bearer, "content-type": "text/plain" },
            body: "строка текста\n",
          }),
        201,
      )
    ).body.asset_id;
    // A file of A listed in B too (decision 047): B's page and that file are read from the catalog's copy.
    const upload = async (name) =>
      (
        await timed(
          () =>
            fetch(`${url}/api/asset/upload?${new URLSearchParams({ in_group: a2, name })}`, {
              method: "POST",
              headers: { authorization: bearer, "content-type": "text/plain" },
              body: "строка текста\n",
            }),
          201,
        )
      ).body.asset_id;
    const [own, guest] = [await upload("свой.txt"), await upload("общий.txt")];
    await timed(send("POST", `/api/group/insert-members/${b}`, { members: [{ el_id: guest, el_type: "asset" }] }), 204);
    const version = (id, name) => () =>
      fetch(`${url}/api/asset/upload?${new URLSearchParams({ asset_id: id, name })}`, {
        method: "POST",
        headers: { authorization: bearer, "content-type": "text/plain" },
        body: "кадр ".repeat(200),
      });
    const times = {
      ...{ whoami: [], rename: [], inside: [], across: [], back: [], page: [], pageGuest: [], view: [], viewTwo: [] },
      ...{ versionOwn: [], versionTwo: [], wopiOwn: [], wopiTwo: [] },
    };
    for (let i = 0; i < N + WARM; i++) {
      const whoami = await timed(send("GET", "/api/auth/whoami"));
      const rename = await timed(send("PATCH", `/api/asset/${file}`, { asset_name: `кадр-${i}.txt` }));
      const inside = await timed(send("POST", `/api/group/move-member/${file}/${a1}/${a2}`), 204);
      const across = await timed(send("POST", `/api/group/move-member/${file}/${a2}/${b}`), 204);
      const back = await timed(send("POST", `/api/group/move-member/${file}/${b}/${a1}`), 204);
      const page = await timed(send("GET", `/api/group/members/${a2}`));
      const pageGuest = await timed(send("GET", `/api/group/members/${b}`));
      const view = await timed(send("GET", `/api/asset/${own}`));
      const viewTwo = await timed(send("GET", `/api/asset/${guest}`));
      if (i < WARM) continue;
      const round = { whoami, rename, inside, across, back, page, pageGuest, view, viewTwo };
      for (const [key, value] of Object.entries(round)) times[key].push(value.elapsed);
    }
    // Versions in loops of their own: each queues the media pipeline, whose work for the other file would otherwise
    // run beside the next one measured.
    for (const [key, id, name] of [
      ["versionOwn", own, "свой.txt"],
      ["versionTwo", guest, "общий.txt"],
    ])
      for (let i = 0; i < N + WARM; i++) {
        const made = await timed(version(id, name), 201);
        if (i >= WARM) times[key].push(made.elapsed);
      }
    // An office editor's saves (WOPI PutFile under its lock), as an editor sends them every few minutes.
    for (const [key, id] of [
      ["wopiOwn", own],
      ["wopiTwo", guest],
    ]) {
      const token = (await timed(send("POST", "/api/wopi/token", { asset_id: id, action: "edit", client: "editor" }))).body.access_token;
      const file = `${url}/api/wopi/files/${id}`;
      const q = `access_token=${encodeURIComponent(token)}`;
      await timed(() => fetch(`${file}?${q}`, { method: "POST", headers: { "x-wopi-override": "LOCK", "x-wopi-lock": "bench" } }), 200);
      for (let i = 0; i < N + WARM; i++) {
        const saved = await timed(
          () =>
            fetch(`${file}/contents?${q}`, {
              method: "POST",
              headers: { "x-wopi-override": "PUT", "x-wopi-lock": "bench" },
              body: "кадр ".repeat(200),
            }),
          200,
        );
        if (i >= WARM) times[key].push(saved.elapsed);
      }
    }
    // Renames of a file of A, one after another, while changes across move another file between A and B (decision 049:
    // in a shard a rename that meets a crossing's hold waits for it; before, it was refused with 503).
    const contended = { renameDuring: [], refusedDuring: 0, renamesDuring: 0 };
    let crossing = true;
    const mover = (async () => {
      for (let i = 0; i < N; i++) {
        await timed(send("POST", `/api/group/move-member/${file}/${a1}/${b}`), 204);
        await timed(send("POST", `/api/group/move-member/${file}/${b}/${a1}`), 204);
      }
      crossing = false;
    })();
    for (let i = 0; crossing; i++) {
      const started = performance.now();
      const res = await send("PATCH", `/api/asset/${own}`, { asset_name: `свой-${i}.txt` })();
      await res.arrayBuffer();
      contended.renamesDuring++;
      if (res.status === 200) contended.renameDuring.push(performance.now() - started);
      else if (res.status === 503) contended.refusedDuring++;
      else throw new Error(`rename during crossings answered ${res.status}`);
    }
    await mover;
    times.renameDuring = contended.renameDuring;
    // A tag on TAGGED files of A deleted, TAG_ROUNDS times (decision 050: in a shard, a change across the libraries it
    // reaches, each file's rows copied into its shard afterwards).
    const tagged = [];
    for (let i = 0; i < TAGGED; i++) tagged.push(await upload(`метка-${i}.txt`));
    times.tagDelete = [];
    for (let i = 0; i < TAG_ROUNDS; i++) {
      const tag = (await timed(send("POST", "/api/tags/create", { tag_name: `метка ${i}` }))).body.tag_id;
      await timed(send("POST", "/api/tags/attach", { tag_ids: [tag], entities: tagged.map((id) => ({ id, type: "asset" })) }));
      times.tagDelete.push((await timed(send("DELETE", `/api/tags/delete/${tag}`))).elapsed);
    }
    return {
      ...Object.fromEntries(Object.entries(times).map(([key, list]) => [key, list.sort((x, y) => x - y)])),
      refused: `${contended.refusedDuring} of ${contended.renamesDuring}`,
    };
  } finally {
    await server.stop();
  }
}

buildUnlessSkipped();
console.log(`crossing: ${N} rounds in each mode, load average ${loadavg()[0].toFixed(1)}`);
const catalog = await run("catalog");
const shard = await run("shard");
const labels = {
  whoami: "floor: whoami",
  rename: "rename the file (inside its library)",
  inside: "move it between two folders of its library",
  across: "move it into the other library",
  back: "move it back",
  page: "folder page (files of its library)",
  pageGuest: "folder page listing a file of the other library",
  view: "a file (the viewer's call)",
  viewTwo: "a file listed in both libraries",
  versionOwn: "a new version (1 KB, one request) of a file of one library",
  versionTwo: "a new version of the file listed in both libraries",
  wopiOwn: "an office editor's save (WOPI PutFile) of a file of one library",
  wopiTwo: "an office editor's save of the file listed in both libraries",
  renameDuring: "rename a file of A while files cross between A and B (answered 200)",
  tagDelete: `delete a tag on ${TAGGED} files of A (${TAG_ROUNDS} times)`,
};
printTable(
  Object.entries(labels).map(([key, label]) => [label, p50p95(catalog[key]), p50p95(shard[key])]),
  ["p50 / p95", "both libraries in the catalog", "each in its own shard"],
);
console.log(`renames refused (503) while files crossed: ${catalog.refused} in the catalog, ${shard.refused} with shards`);
console.log(`load average at the end ${loadavg()[0].toFixed(1)}`);
