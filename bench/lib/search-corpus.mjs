// The search benchmark's corpus as one small SQL file (bench/search.mjs, and bench/scale.mjs with its libraries):
// assets named from a Russian/English word list, one tag and FIELDS field values each, some with a text document, in
// `tops` top folders (libraries) × `subs` subfolders; a reader whose read access comes from a rule on one top folder.
// Row generators are recursive CTEs inside SQLite, so the file stays a few kilobytes whatever the counts. The seed
// drops the search triggers, loads the rows, builds the documents in bulk from the views the triggers use, then
// recreates the triggers as the migrations define them (the index itself: buildSearchIndexOfState).

import { ROOT } from "./measure.mjs";
import { REBUILD_SEARCH_DOCS, searchIndexTriggers } from "./search-index.mjs";
import { WORDS } from "./search-words.mjs";

export const FIELDS = 5;
export const TAGS = 50;

const ROOT_GROUP_ID = "f".repeat(32);
export const hexId = (n) => n.toString(16).padStart(32, "0");
const ASSET_BASE = 0xd1_0000_0000;
const GROUP_BASE = 0xd2_0000_0000;
const TAG_BASE = 0xd3_0000_0000;
const FIELD_BASE = 0xd4_0000_0000;
const VALUE_BASE = 0xd5_0000_0000;
const READER_ID = hexId(0xd6_0000_0000);
export const READER_LOGIN = "bench-search-reader";

/** Top folder `top` (a library). */
export const topId = (top) => hexId(GROUP_BASE + top * 1000);
/** Subfolder `sub` of top folder `top`. */
export const subId = (top, sub) => hexId(GROUP_BASE + top * 1000 + sub + 1);
/** Asset n; it lives in subfolder n % (tops × subs): top ⌊(n % (tops × subs)) / subs⌋, sub n % subs. */
export const corpusAssetId = (n) => hexId(ASSET_BASE + n);

const W = WORDS.length;
const wordsValues = WORDS.map((w, i) => `(${i}, '${w}')`).join(", ");

/** SQL of the seed. Word k of asset n is a multiplicative hash. */
export function corpusSeedSql({ assets, documents, tops, subs, readerTop, now = Date.now() }) {
  const ASSETS = assets;
  const DOCUMENTS = documents;
  const TOPS = tops;
  const SUBS = subs;
  const READER_TOP = readerTop;
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const seq = (count) => `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})`;
  const words = `words(i, w) AS (VALUES ${wordsValues})`;
  const word = (expr) => `(SELECT w FROM words WHERE i = (${expr}) % ${W})`;
  const triggers = searchIndexTriggers(ROOT);
  const triggerNames = triggers.map((t) => /CREATE TRIGGER (\w+)/.exec(t)[1]);
  const group = subId;
  const s = [];
  s.push(...triggerNames.map((name) => `DROP TRIGGER ${name}`));
  // Tree: 10 top folders under the root, 100 subfolders each, closure rows and listings.
  for (let t = 0; t < TOPS; t++) {
    s.push(
      `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${topId(
        t,
      )}', 'Архив ${t}', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    );
    s.push(
      `${seq(SUBS)} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime)
        SELECT printf('%032x', ${GROUP_BASE} + ${t * 1000} + n + 1), 'Папка ${t}-' || n, '${topId(t)}', ${admin}, ${now}, ${now} FROM seq`,
    );
  }
  const tree = `id BETWEEN '${topId(0)}' AND '${group(TOPS - 1, SUBS)}'`;
  s.push(`INSERT INTO group_closure (ancestor, descendant, depth) SELECT id, id, 0 FROM groups WHERE ${tree}`);
  s.push(`INSERT INTO group_closure (ancestor, descendant, depth) SELECT parent_id, id, 1 FROM groups WHERE ${tree}`);
  s.push(
    `INSERT INTO group_closure (ancestor, descendant, depth) SELECT '${ROOT_GROUP_ID}', id, 2 FROM groups WHERE ${tree} AND parent_id <> '${ROOT_GROUP_ID}'`,
  );
  s.push(
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) SELECT parent_id, id, 'group', ${now}, lower(name) FROM groups WHERE ${tree}`,
  );
  // Tags and field templates.
  s.push(
    `${seq(TAGS)}, ${words} INSERT INTO tags (id, name, ctime) SELECT printf('%032x', ${TAG_BASE} + n), ${word(
      "n * 7 + 3",
    )} || ' ' || n, ${now} FROM seq`,
  );
  for (let k = 0; k < FIELDS; k++) {
    s.push(
      `INSERT INTO field_templates (id, name, field_type, setup, priority, ctime, mtime) VALUES ('${hexId(
        FIELD_BASE + k,
      )}', 'Поле поиска ${k}', 'text', '{}', ${k}, ${now}, ${now})`,
    );
  }
  // Assets: three words and an extension; asset n lives in subfolder n % 1000.
  s.push(
    `${seq(ASSETS)}, ${words} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT printf('%032x', ${ASSET_BASE} + n),
        ${word("n * 7919")} || ' ' || ${word("n * 104729 + 11")} || ' ' || ${word(
      "n * 1299709 + 37",
    )} || CASE n % 3 WHEN 0 THEN '.jpg' WHEN 1 THEN '.mp4' ELSE '.txt' END,
        CASE n % 3 WHEN 0 THEN 'image/jpeg' WHEN 1 THEN 'video/mp4' ELSE 'text/plain' END, ${admin}, ${admin}, 1, ${now} - n * 1000, ${now}, ${now} FROM seq`,
  );
  // Asset n (rowid n + 1 in the fresh table) is listed in subfolder n % 1000: top (n % 1000) / 100, sub n % 100.
  s.push(
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name)
      SELECT printf('%032x', ${GROUP_BASE} + (((a.rowid - 1) % ${TOPS * SUBS}) / ${SUBS}) * 1000 + ((a.rowid - 1) % ${SUBS}) + 1),
        id, 'asset', ${now}, lower(name) FROM assets a WHERE id >= '${hexId(ASSET_BASE)}'`,
  );
  s.push(
    `INSERT INTO entity_tags (tag_id, entity_id, entity_type) SELECT printf('%032x', ${TAG_BASE} + (a.rowid % ${TAGS})), id, 'asset' FROM assets a WHERE id >= '${hexId(
      ASSET_BASE,
    )}'`,
  );
  for (let k = 0; k < FIELDS; k++) {
    s.push(
      `${seq(ASSETS)}, ${words} INSERT INTO field_values (id, entity_id, entity_type, def_id, data, value_text, ctime, mtime)
        SELECT printf('%032x', ${VALUE_BASE} + n * ${FIELDS} + ${k}), printf('%032x', ${ASSET_BASE} + n), 'asset', '${hexId(
        FIELD_BASE + k,
      )}',
          json_quote(${word(`n * ${31 + k * 17} + ${k}`)}), ${word(`n * ${31 + k * 17} + ${k}`)}, ${now}, ${now} FROM seq`,
    );
  }
  // Text documents: evenly spread assets get 5 sentences of 12 words (printf: a chain of 60 `||` would pass
  // SQLite's expression depth limit of 100).
  const sentence = (salt) => Array.from({ length: 12 }, (_, i) => word(`n * ${7 + i * 13 + salt} + ${i * 5 + salt}`));
  const format = Array.from({ length: 5 }, () => Array(12).fill("%s").join(" ")).join(". ");
  s.push(
    `${seq(DOCUMENTS)}, ${words} INSERT INTO search_content (asset_id, version, text, mtime)
      SELECT printf('%032x', ${ASSET_BASE} + n * ${Math.floor(ASSETS / DOCUMENTS)}), 1,
        printf('${format}.', ${[1, 2, 3, 4, 5].flatMap(sentence).join(", ")}), ${now} FROM seq`,
  );
  // The reader: a rule granting read on one top folder.
  s.push(
    `INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
      VALUES ('${READER_ID}', '${READER_LOGIN}', 'Читатель поиска', (SELECT password_hash FROM users WHERE lower(login) = 'admin'), 0, 0, 1, '[]', ${now}, ${now})`,
  );
  s.push(
    `INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      VALUES ('${hexId(0xd7_0000_0000)}', '${READER_ID}', 'user', '${topId(READER_TOP)}', 'group', 2, ${now}, ${admin})`,
  );
  // The documents in bulk (the index itself is written into SEARCH before the start: buildSearchIndexOfState), then
  // the triggers again.
  s.push(...REBUILD_SEARCH_DOCS);
  s.push(...triggers.map((t) => t.replace(/;\s*$/, "")));
  s.push("ANALYZE");
  return `${s.join(";\n")};\n`;
}
