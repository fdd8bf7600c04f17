// Reads of one file or folder where its library lives (decision 051, step 2.1; `npm run bench -- routed-reads`, or
// `SKIP_BUILD=1 node bench/routed-reads.mjs` after a build): a library with a subfolder, 40 small files and a file
// with comments, read by its administrator — the file's details, versions and comments, a download of its bytes, its
// best viewable rendition with a play link, the folder's tree and previews, a variant's technical fields and a play
// link to it (the file named), the caller's levels and the sizes of folders of this library and another, a shared
// link's answer, a download and the folder's ZIP through it, and a password link's unlock, anonymous, the viewer's
// page data (its loader), a selection's ZIP of one library and of two, a shared collection's ZIP of two, and the
// trash's files and folders of both libraries, folders found by name in both, a tag's count, a classification's tree
// and members and the files with a field's value over both, and an export task of both (its run, BENCH_EXPORTS
// rounds, default 20) — with the libraries in the catalog (`NEW_LIBRARIES=catalog`) and each in a shard of its own (`NEW_LIBRARIES=shard`: each
// read one call into the shard, the caller's copy read beside sign-in), each on its own fresh `wrangler dev`, the
// whoami floor from the same run.
// BENCH_READS rounds (default 100) after 10 unmeasured. Locally the Worker, D1 and the shard share one thread, so the
// figures compare work, not distance. Loopback only; servers always stopped; exits 0 once it has run.
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, p50p95, printTable, signIn, timed } from "./lib/measure.mjs";

const N = Number(process.env.BENCH_READS ?? "100");
const WARM = 10;
const EXPORTS = Number(process.env.BENCH_EXPORTS ?? "20");
const FILES = 40;
const ROOT_GROUP_ID = "f".repeat(32);

/** One read (a GET, or a POST of `json`) timed to its last byte; anything but 200 stops the benchmark. */
async function read(url, headers, json) {
  const started = performance.now();
  const response = await fetch(
    url,
    json === undefined
      ? { headers }
      : { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(json) },
  );
  const body = await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (response.status !== 200)
    throw new Error(
      `${json === undefined ? "GET" : "POST"} ${url} answered ${response.status}: ${new TextDecoder().decode(body).slice(0, 200)}`,
    );
  return elapsed;
}

async function run(mode) {
  const persistDir = await mkdtemp(join(tmpdir(), `bench-routed-reads-${mode}-`));
  const server = await startDevServer({ port: await freePort(), persistDir, vars: { NEW_LIBRARIES: mode, RATE_LIMITS: "off" } });
  try {
    const { url } = server;
    const session = await signIn(url, server.adminLogin, server.adminPassword);
    const bearer = `Bearer ${session.bearer}`;
    const headers = { authorization: bearer, "content-type": "application/json" };
    const send = (method, path, json) => () =>
      fetch(`${url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    const folder = async (name, parent = ROOT_GROUP_ID) =>
      (await timed(send("POST", "/api/group/create", { parent, group_name: name }))).body.group_id;
    const top = await folder("Съёмки");
    const sub = await folder("День 1", top);
    const upload = async (name, group = sub) =>
      (
        await timed(
          () =>
            fetch(`${url}/api/asset/upload?${new URLSearchParams({ in_group: group, name })}`, {
              method: "POST",
              headers: { authorization: bearer, "content-type": "text/plain" },
              body: `${name}: `.padEnd(4000, "кадр "),
            }),
          201,
        )
      ).body.asset_id;
    const file = await upload("сценарий.txt");
    for (let i = 0; i < FILES - 1; i++) await upload(`заметка-${i}.txt`);
    for (let i = 0; i < 20; i++) await timed(send("POST", `/api/asset/${file}/comments`, { text: `Замечание ${i}: свет слева` }), 201);
    const [variant] = (await timed(send("GET", `/api/asset/variants/${file}/1`))).body;
    const variantId = variant.variant_id ?? variant.id;
    const other = await folder("Архив");
    // A folder of each library named alike: a search by name finds both (in shard mode each library searched in its shard).
    await folder("День 2", other);
    const otherFiles = [];
    for (let i = 0; i < 4; i++) otherFiles.push(await upload(`архив-${i}.txt`, other));
    // A collection of files of both libraries, shared with downloads allowed: its ZIP is planned in each library.
    const collection = (await timed(send("POST", "/api/collections", { name: "Подборка" }), 201)).body.collection_id;
    await timed(send("POST", `/api/collections/${collection}/items`, { asset_ids: [file, ...otherFiles] }));
    const collectionMade = await (await send("POST", `/api/sl/create/${collection}`, { acl: ["read", "download"] })()).text();
    const collectionLink = /\/sl\/([A-Za-z0-9_-]{22})/.exec(collectionMade)[1];
    const collectionZip = (await timed(() => fetch(`${url}/api/sl/info/${collectionLink}`))).body.group.zip_url;
    // The trash of both libraries: files and a folder of each deleted (in shard mode listed by each shard, merged).
    for (const [group, prefix] of [
      [sub, "черновик"],
      [other, "старое"],
    ]) {
      for (let i = 0; i < 5; i++) await timed(send("DELETE", `/api/asset/${await upload(`${prefix}-${i}.txt`, group)}`), 204);
      await timed(send("DELETE", `/api/group/delete/${await folder(`${prefix} (папка)`, group)}`), 204);
    }
    // A tag and a classification on files of both libraries: their counts (in shard mode each library's counted in its
    // shard, summed) and the classification's members (listed in each library, merged by name).
    const tag = (await timed(send("POST", "/api/tags/create", { tag_name: "Съёмка" }))).body.tag_id;
    const entities = [file, ...otherFiles].map((id) => ({ id, type: "asset" }));
    await timed(send("POST", "/api/tags/attach", { tag_ids: [tag], entities }));
    const tree = (await timed(send("POST", `/api/taxonomy/create/${ROOT_GROUP_ID}`, { path: "Темы" }))).body.tree_id;
    const leaf = (await timed(send("POST", `/api/taxonomy/create/${tree}`, { path: "Натура" }))).body.taxon_id;
    const template = (await timed(send("POST", "/api/fields/template", { field_def_name: "Локация", field_type: "text" }))).body
      .field_def_id;
    for (const { id } of entities) {
      await timed(send("POST", `/api/taxonomy/add-member/${leaf}`, { objectId: id }));
      await timed(send("POST", `/api/fields/create/${id}`, { def_id: template, asset_version_id: 1, data: "Студия" }));
    }
    // A link to the library, opened anonymously: its answer (a new page each round, so never the edge's kept copy)
    // and a download of the file through it.
    const made = await (await send("POST", `/api/sl/create/${top}`, { acl: ["read", "download"] })()).text();
    const link = /\/sl\/([A-Za-z0-9_-]{22})/.exec(made)[1];
    const shared = (await timed(() => fetch(`${url}/api/sl/info/${link}?folder=${sub}`))).body;
    const linkDownload = shared.group.items.find((item) => item.asset_id === file).download_url;
    // A password link to the same library: each round's unlock checks the password (PBKDF2) and opens a page.
    const locked = await (await send("POST", `/api/sl/create/${top}`, { password: "пароль-бенча" })()).text();
    const lockedLink = /\/sl\/([A-Za-z0-9_-]{22})/.exec(locked)[1];
    // A reader of the first library's subfolder and of one file of the other (their folders hidden from him): his
    // «Доступные Файлы» lists both (in shard mode each library lists its own, merged by name).
    const readerLogin = { user_name: "Читатель", user_login: "bench-reader", user_passwd: "пароль-читателя-1", enabled: true };
    const readerId = (await timed(send("POST", "/api/user", readerLogin))).body.user_id;
    await timed(send("POST", "/api/user/acl", { subj: readerId, obj: sub, acl: ["read"] }), 201);
    await timed(send("POST", "/api/user/acl", { subj: readerId, obj: otherFiles[0], acl: ["read"] }), 201);
    const reader = { authorization: `Bearer ${(await signIn(url, readerLogin.user_login, readerLogin.user_passwd)).bearer}` };
    const reads = {
      whoami: "/api/auth/whoami",
      asset: `/api/asset/${file}`,
      versions: `/api/asset/versions/${file}`,
      comments: `/api/asset/${file}/comments`,
      download: `/api/asset/content/download/${file}/latest/${variantId}`,
      proxyDoc: `/api/asset/asset-proxy-doc/${file}/latest`,
      tree: `/api/group/subtree/${top}`,
      previews: `/api/group/preview-list/${sub}`,
      techFields: `/api/asset/variant-tech-fields/${variantId}?a=${file}`,
      playVariant: `/api/asset/content/play-variant/${variantId}?a=${file}`,
      // Several items of two libraries (in shard mode each in its own shard): one call into each, side by side.
      levels: ["/api/auth/entity-user-access", [{ entity: file }, { entity: sub }, { entity: other }]],
      sizes: ["/api/group/group-size", { ids: [top, sub, other] }],
      linkInfo: (i) => [`/api/sl/info/${link}?folder=${sub}&page=${i}`, undefined, {}],
      linkDownload: [linkDownload, undefined, {}],
      linkZip: [shared.group.zip_url, undefined, {}],
      // A selection's ZIP in the app: a folder of one library, then with a folder of another (in shard mode planned
      // in both shards, side by side, and merged); a shared collection's ZIP over both libraries.
      zipOne: ["/api/zip", { group_ids: [sub], asset_ids: [] }],
      zipTwo: ["/api/zip", { group_ids: [sub, other], asset_ids: [] }],
      collectionZip: [collectionZip, undefined, {}],
      folderSearch: `/api/group/search?q=${encodeURIComponent("день")}`,
      readerRoot: [`/api/group/members/${ROOT_GROUP_ID}`, undefined, reader],
      // The root's tree as the move dialog asks it: the catalog's part and each shard's, merged.
      rootTree: `/api/group/subtree/${ROOT_GROUP_ID}?assets=false`,
      readerRootTree: [`/api/group/subtree/${ROOT_GROUP_ID}?assets=false`, undefined, reader],
      trashFiles: "/api/asset/trash?take=50",
      trashFolders: "/api/group/trash?take=50",
      tagCount: ["/api/tags/list-by-ids", { ids: [tag] }],
      tagsOfFiles: ["/api/tags/list-by-filter", { entity_type: "asset", entity_ids: entities.map((e) => e.id) }],
      taxonomyTree: `/api/taxonomy/tree/${tree}`,
      taxonMembers: `/api/taxonomy/list-members/${leaf}/${tree}`,
      byValue: ["/api/fields/entities-by-field", { def_id: template, condition: { op: "eq", value: "Студия" } }],
      // The viewer's page as a browser navigates to it (its loader's data): sign-in by cookie, the caller's levels.
      viewerPage: [
        `/mam/${sub}/asset/${file}.data?_routes=${encodeURIComponent("routes/_app.mam.$idGroup.asset.$id")}`,
        undefined,
        { cookie: session.cookie },
      ],
      linkUnlock: (i) => [`/api/sl/info/${lockedLink}?folder=${sub}&page=${i}`, { password: "пароль-бенча" }, {}],
    };
    const times = Object.fromEntries(Object.keys(reads).map((key) => [key, []]));
    for (let i = 0; i < N + WARM; i++) {
      for (const [key, what] of Object.entries(reads)) {
        // a path; [path, JSON body]; [path, body, headers] (anonymous: none); or one of those made for round i
        const [path, json, as = { authorization: bearer }] =
          typeof what === "string" ? [what] : typeof what === "function" ? what(i) : what;
        const elapsed = await read(`${url}${path}`, as, json);
        if (i >= WARM) times[key].push(elapsed);
      }
    }
    // An export task of both libraries (in shard mode each share planned over its shard, a statement per call, and
    // each file's bytes found where it lives): its run, from the runner's start to its stop, without the queue's wait.
    times.exportRun = [];
    for (let i = 0; i < EXPORTS; i++) {
      const entities = [top, other].map((id) => ({ id, type: "group" }));
      const { job_id } = (await timed(send("POST", "/api/tasklist/enqueue-task/export", { entities, options: { recursive: true } }))).body;
      for (const deadline = Date.now() + 60_000; ; ) {
        const task = (await timed(send("GET", `/api/tasklist/task/${job_id}`))).body;
        if (task.status === "done") {
          times.exportRun.push(Date.parse(task.stop_time) - Date.parse(task.start_time));
          break;
        }
        if (task.status === "error" || Date.now() > deadline) throw new Error(`export ${job_id}: ${task.status} ${task.error ?? ""}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return Object.fromEntries(Object.entries(times).map(([key, list]) => [key, list.sort((x, y) => x - y)]));
  } finally {
    await server.stop();
  }
}

buildUnlessSkipped();
console.log(`routed reads: ${N} rounds in each mode, load average ${loadavg()[0].toFixed(1)}`);
const catalog = await run("catalog");
const shard = await run("shard");
const labels = {
  whoami: "floor: whoami",
  asset: "a file (the viewer's call)",
  versions: "its versions",
  comments: "its 20 comments",
  download: "a download of its bytes (4 KB)",
  proxyDoc: "its best viewable rendition, with a play link",
  tree: `the library's tree (${FILES} files)`,
  previews: "a folder's previews",
  techFields: "a variant's technical fields (its file named)",
  playVariant: "a play link to a variant (its file named)",
  levels: "the caller's levels on 3 items of 2 libraries",
  sizes: "the sizes of 3 folders of 2 libraries",
  linkInfo: "a shared link's answer, anonymous (computed)",
  linkDownload: "a download through the link (4 KB), anonymous",
  linkZip: `the folder's ZIP through the link (${FILES} files of 4 KB), anonymous`,
  zipOne: `a selection's ZIP: one folder (${FILES} files)`,
  zipTwo: `a selection's ZIP: folders of 2 libraries (${FILES} + 4 files)`,
  collectionZip: "a shared collection's ZIP: 5 files of 2 libraries, anonymous",
  folderSearch: "folders found by name: 2 of 2 libraries, with their paths",
  readerRoot: "a reader's «Доступные Файлы»: a folder and a file of 2 libraries",
  rootTree: "the root's folder tree (the move dialog): 2 libraries",
  readerRootTree: "a reader's root folder tree: a folder of 2 libraries",
  trashFiles: "the trash's files: 10 of 2 libraries",
  trashFolders: "the trash's folders: 2 of 2 libraries",
  tagCount: "a tag's count: 5 files of 2 libraries",
  tagsOfFiles: "the tags 5 files of 2 libraries carry, with their counts",
  taxonomyTree: "a classification's tree with its counts: 5 files of 2 libraries",
  taxonMembers: "a classification's members: 5 files of 2 libraries",
  byValue: "the files with a field's value: 5 of 2 libraries",
  viewerPage: "the viewer's page data (sign-in by cookie, the caller's levels)",
  linkUnlock: "a password link unlocked and its page answered, anonymous",
  exportRun: `an export task's run: both libraries (${FILES} + 4 files; BENCH_EXPORTS rounds)`,
};
printTable(
  Object.entries(labels).map(([key, label]) => [label, p50p95(catalog[key]), p50p95(shard[key])]),
  ["p50 / p95", "library in the catalog", "library in its shard"],
);
console.log(`load average at the end ${loadavg()[0].toFixed(1)}`);
