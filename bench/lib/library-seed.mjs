// The data set of bench/library.mjs as one small SQL file: 100,000 assets (each with a version and a ready variant)
// listed in one group, a tree of 11,111 groups (10 × 10 × 10 × 10 below one top group) with its closure rows, and
// one 1 GiB asset whose bytes the benchmark writes into R2 itself. Rows are produced by recursive CTEs inside
// SQLite, so the file stays a few kilobytes whatever the counts.

/** 32 lowercase hex characters, like every id of the product. */
export const hexId = (n) => n.toString(16).padStart(32, "0");

export const ROOT_GROUP_ID = "f".repeat(32);
export const DEFAULT_STORAGE_ID = "0".repeat(32);

/** Number ranges the generated ids come from (one prefix per table, far apart). */
const ASSET_BASE = 0xa5_0000_0000;
const VERSION_BASE = 0xa6_0000_0000;
const VARIANT_BASE = 0xa7_0000_0000;
const TREE_BASE = 0xb2_0000_0000;
/** Ids of a tree group: level (0 = top) × 100,000 + index within the level. */
const treeNumber = (level, index) => TREE_BASE + level * 100_000 + index;

export const BIG_GROUP_ID = hexId(0xb1_0000_0000);
export const BIG_GROUP_NAME = "Bench 100k";
export const TREE_TOP_ID = hexId(treeNumber(0, 0));
export const TREE_TOP_NAME = "Bench tree";
export const GIB_ASSET_ID = hexId(0xa8_0000_0001);
export const GIB_VERSION_ID = hexId(0xa8_0000_0002);
export const GIB_VARIANT_ID = hexId(0xa8_0000_0003);
export const GIB_KEY = "bench/1gib";
export const GIB_BYTES = 1024 ** 3;

/** Name of asset n (1-based): zero-padded, so name order is number order and any position's key is known. */
export const assetName = (n) => `clip-${String(n).padStart(6, "0")}.mp4`;
export const assetId = (n) => hexId(ASSET_BASE + n);

/** Name of a tree group: `L<level>-<digit>`; the digits of its index are the path from the top. */
const treeName = (level, index) => `L${level}-${index % 10}`;

/**
 * The path below the virtual root of the tree group at `level` whose index digits are `digits`.
 * @example treePath([3, 7, 2, 9]) // "Bench tree/L1-3/L2-7/L3-2/L4-9"
 */
export function treePath(digits) {
  return [TREE_TOP_NAME, ...digits.map((d, i) => `L${i + 1}-${d}`)].join("/");
}

/** The id of the tree group reached by `digits` (see treePath). */
export function treeGroupId(digits) {
  const index = digits.reduce((acc, d) => acc * 10 + d, 0);
  return hexId(treeNumber(digits.length, index));
}

/**
 * The seed SQL. `assets` and `fanout`/`levels` size the data set; the administrator (login `admin`, created by the
 * server's first request) owns everything.
 * `bigBytes` is the size recorded for the big variant (1 GiB; smaller for a quick check at BENCH_SCALE < 1).
 * @param {{ assets?: number, fanout?: number, levels?: number, bigBytes?: number, now?: number }} [options]
 */
export function librarySeedSql({ assets = 100_000, fanout = 10, levels = 4, bigBytes = GIB_BYTES, now = Date.now() } = {}) {
  if (fanout !== 10) throw new Error("librarySeedSql: the id scheme and names assume a fan-out of 10");
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const id = (expr) => `printf('%032x', ${expr})`;
  const statements = [];

  // --- One group of `assets` assets -------------------------------------------------------------------------
  statements.push(
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${BIG_GROUP_ID}', '${BIG_GROUP_NAME}', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${BIG_GROUP_ID}', '${BIG_GROUP_ID}', 0), ('${ROOT_GROUP_ID}', '${BIG_GROUP_ID}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${BIG_GROUP_ID}', 'group', ${now}, '${BIG_GROUP_NAME.toLowerCase()}', ${now}, 0)`,
  );
  // Sizes between 1 KB and ~100 MB, mtimes one second apart, three MIME types.
  const seq = `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${assets})`;
  const size = `(1000 + (n * 7919) % 100000000)`;
  const name = `printf('clip-%06d.mp4', n)`;
  statements.push(
    `${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT ${id(`${ASSET_BASE} + n`)}, ${name}, CASE n % 3 WHEN 0 THEN 'video/mp4' WHEN 1 THEN 'image/jpeg' ELSE 'audio/mpeg' END,
        ${admin}, ${admin}, 1, ${now} - n * 1000, ${now} - n * 1000, ${now} - n * 1000 FROM seq`,
    `${seq} INSERT INTO asset_versions (id, asset_id, version, user_id, ctime)
      SELECT ${id(`${VERSION_BASE} + n`)}, ${id(`${ASSET_BASE} + n`)}, 1, ${admin}, ${now} - n * 1000 FROM seq`,
    `${seq} INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
      SELECT ${id(`${VARIANT_BASE} + n`)}, ${id(`${ASSET_BASE} + n`)}, ${id(
      `${VERSION_BASE} + n`,
    )}, 'initial', 'ready', ${name}, 'video/mp4', 'mp4', ${name},
        ${size}, printf('%064x', n), '${DEFAULT_STORAGE_ID}', 'bench/missing/' || n, ${admin}, ${now} - n * 1000 FROM seq`,
    `${seq} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT '${BIG_GROUP_ID}', ${id(`${ASSET_BASE} + n`)}, 'asset', ${now}, lower(${name}), ${now} - n * 1000, ${size} FROM seq`,
  );

  // --- The tree: a top group below the virtual root, `levels` levels of `fanout` children each -----------------
  statements.push(
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${TREE_TOP_ID}', '${TREE_TOP_NAME}', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${TREE_TOP_ID}', '${TREE_TOP_ID}', 0), ('${ROOT_GROUP_ID}', '${TREE_TOP_ID}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${TREE_TOP_ID}', 'group', ${now}, '${TREE_TOP_NAME.toLowerCase()}', ${now}, 0)`,
  );
  for (let level = 1; level <= levels; level++) {
    const count = fanout ** level;
    const idx = `WITH RECURSIVE idx(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM idx WHERE i < ${count - 1})`;
    const self = id(`${treeNumber(level, 0)} + i`);
    const parent = id(`${treeNumber(level - 1, 0)} + i / ${fanout}`);
    const levelName = `'L${level}-' || (i % ${fanout})`;
    statements.push(
      `${idx} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) SELECT ${self}, ${levelName}, ${parent}, ${admin}, ${now}, ${now} FROM idx`,
      `${idx} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
        SELECT ${parent}, ${self}, 'group', ${now}, lower(${levelName}), ${now}, 0 FROM idx`,
      // Closure as the product writes it: the parent's ancestors one deeper, plus the self row.
      `INSERT INTO group_closure (ancestor, descendant, depth)
        SELECT c.ancestor, g.id, c.depth + 1 FROM groups g JOIN group_closure c ON c.descendant = g.parent_id
        WHERE g.id BETWEEN '${hexId(treeNumber(level, 0))}' AND '${hexId(treeNumber(level, count - 1))}'
        UNION ALL SELECT id, id, 0 FROM groups WHERE id BETWEEN '${hexId(treeNumber(level, 0))}' AND '${hexId(
        treeNumber(level, count - 1),
      )}'`,
    );
  }

  // --- The 1 GiB asset: rows only; bench/library.mjs writes the bytes under GIB_KEY through /internal/bench --------
  statements.push(
    `INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      VALUES ('${GIB_ASSET_ID}', 'bench-1gib.bin', 'application/octet-stream', ${admin}, ${admin}, 1, ${now}, ${now}, ${now})`,
    `INSERT INTO asset_versions (id, asset_id, version, user_id, ctime) VALUES ('${GIB_VERSION_ID}', '${GIB_ASSET_ID}', 1, ${admin}, ${now})`,
    `INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size, storage_id, storage_key, user_id, ctime)
      VALUES ('${GIB_VARIANT_ID}', '${GIB_ASSET_ID}', '${GIB_VERSION_ID}', 'initial', 'ready', 'bench-1gib.bin', 'application/octet-stream', 'bin',
        'bench-1gib.bin', ${bigBytes}, '${DEFAULT_STORAGE_ID}', '${GIB_KEY}', ${admin}, ${now})`,
  );
  return `${statements.join(";\n")};\n`;
}

/** Groups the tree holds below its top (10 + 100 + 1,000 + 10,000 with the defaults). */
export function treeGroupCount({ fanout = 10, levels = 4 } = {}) {
  let total = 0;
  for (let level = 1; level <= levels; level++) total += fanout ** level;
  return total;
}
