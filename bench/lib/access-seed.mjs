// The data set of bench/access.mjs as one small SQL file (recursive CTEs, so it stays a few kilobytes): a tree of
// 11,111 groups (10 × 10 × 10 × 10 below one top group, 10,000 leaves), 100,000 assets listed 100 per level-3 group
// (every tenth also in a leaf), 1,000 users, 200 groups of users with 2 memberships per user, 50,000 access rules
// spread over users, groups of users, tree groups and assets (some deny), and 100 inheritance switches.

import { hexId, ROOT_GROUP_ID, DEFAULT_STORAGE_ID } from "./library-seed.mjs";

export const USERS = 1_000;
export const TEAMS = 200;
export const RULES = 50_000;
export const ASSETS = 100_000;
export const SWITCHES = 100;

const ASSET_BASE = 0xc5_0000_0000;
const VERSION_BASE = 0xc6_0000_0000;
const VARIANT_BASE = 0xc7_0000_0000;
const TREE_BASE = 0xd2_0000_0000;
const USER_BASE = 0xe1_0000_0000;
const TEAM_BASE = 0xe2_0000_0000;
const RULE_BASE = 0xe3_0000_0000;
const TEAMS_TOP = hexId(0xe2_ffff_ffff);

const treeNumber = (level, index) => TREE_BASE + level * 100_000 + index;
export const TREE_TOP_ID = hexId(treeNumber(0, 0));
export const treeGroupId = (level, index) => hexId(treeNumber(level, index));
export const assetId = (n) => hexId(ASSET_BASE + n);
export const userId = (n) => hexId(USER_BASE + n);
export const userLogin = (n) => `bench-user-${n}`;

/**
 * The measured reader: user 0. Its access to level-3 group `READER_L3` and its assets comes only from a rule two
 * levels up, on level-1 group `READER_L1` (the seed's other rules give it about 50 more on unrelated entities).
 */
export const READER = 0;
export const READER_L1 = 3;
export const READER_L3 = 372; // below L1 group 3 (372 / 100 = 3), L2 group 37
export const readerAsset = () => assetId(READER_L3); // asset n lives in level-3 group n % 1000

const LEVEL_COUNTS = [1, 10, 100, 1_000, 10_000];

/** The seed SQL; the administrator (login `admin`) owns the tree and the assets; users share the admin's password. */
export function accessSeedSql({ now = Date.now() } = {}) {
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const id = (expr) => `printf('%032x', ${expr})`;
  const seq = (count) => `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})`;
  const s = [];

  // --- The tree ------------------------------------------------------------------------------------------------
  s.push(
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${TREE_TOP_ID}', 'Access tree', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${TREE_TOP_ID}', '${TREE_TOP_ID}', 0), ('${ROOT_GROUP_ID}', '${TREE_TOP_ID}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${TREE_TOP_ID}', 'group', ${now}, 'access tree', ${now}, 0)`,
  );
  for (let level = 1; level <= 4; level++) {
    const count = LEVEL_COUNTS[level];
    const self = id(`${treeNumber(level, 0)} + n`);
    const parent = id(`${treeNumber(level - 1, 0)} + n / 10`);
    const name = `'L${level}-' || n`;
    s.push(
      `${seq(
        count,
      )} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) SELECT ${self}, ${name}, ${parent}, ${admin}, ${now}, ${now} FROM seq`,
      `${seq(count)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
        SELECT ${parent}, ${self}, 'group', ${now}, lower(${name}), ${now}, 0 FROM seq`,
      `INSERT INTO group_closure (ancestor, descendant, depth)
        SELECT c.ancestor, g.id, c.depth + 1 FROM groups g JOIN group_closure c ON c.descendant = g.parent_id
        WHERE g.id BETWEEN '${hexId(treeNumber(level, 0))}' AND '${hexId(treeNumber(level, count - 1))}'
        UNION ALL SELECT id, id, 0 FROM groups WHERE id BETWEEN '${hexId(treeNumber(level, 0))}' AND '${hexId(
        treeNumber(level, count - 1),
      )}'`,
    );
  }

  // --- Assets: 100 per level-3 group, every tenth also listed in a leaf -----------------------------------------
  const name = `printf('clip-%06d.mp4', n)`;
  s.push(
    `${seq(ASSETS)} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT ${id(`${ASSET_BASE} + n`)}, ${name}, 'video/mp4', ${admin}, ${admin}, 1, ${now} - n, ${now} - n, ${now} - n FROM seq`,
    `${seq(ASSETS)} INSERT INTO asset_versions (id, asset_id, version, user_id, ctime)
      SELECT ${id(`${VERSION_BASE} + n`)}, ${id(`${ASSET_BASE} + n`)}, 1, ${admin}, ${now} FROM seq`,
    `${seq(
      ASSETS,
    )} INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
      SELECT ${id(`${VARIANT_BASE} + n`)}, ${id(`${ASSET_BASE} + n`)}, ${id(
      `${VERSION_BASE} + n`,
    )}, 'initial', 'ready', ${name}, 'video/mp4', 'mp4', ${name},
        1000 + n, printf('%064x', n), '${DEFAULT_STORAGE_ID}', 'bench/missing/' || n, ${admin}, ${now} FROM seq`,
    `${seq(ASSETS)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT ${id(`${treeNumber(3, 0)} + n % 1000`)}, ${id(
      `${ASSET_BASE} + n`,
    )}, 'asset', ${now}, lower(${name}), ${now} - n, 1000 + n FROM seq`,
    `${seq(ASSETS / 10)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT ${id(`${treeNumber(4, 0)} + (n * 7) % 10000`)}, ${id(
      `${ASSET_BASE} + n * 10`,
    )}, 'asset', ${now}, lower(printf('clip-%06d.mp4', n * 10)), ${now}, 1000 FROM seq`,
  );

  // --- Users (the admin's password), groups of users, memberships -----------------------------------------------
  s.push(
    `${seq(USERS)} INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
      SELECT ${id(
        `${USER_BASE} + n`,
      )}, 'bench-user-' || n, 'Bench user ' || n, (SELECT password_hash FROM users WHERE lower(login) = 'admin'), 0, 0, 1, '[]', ${now}, ${now} FROM seq`,
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${TEAMS_TOP}', 'Teams', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${TEAMS_TOP}', '${TEAMS_TOP}', 0), ('${ROOT_GROUP_ID}', '${TEAMS_TOP}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${TEAMS_TOP}', 'group', ${now}, 'teams', ${now}, 0)`,
    `${seq(TEAMS)} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) SELECT ${id(
      `${TEAM_BASE} + n`,
    )}, 'Team ' || n, '${TEAMS_TOP}', ${admin}, ${now}, ${now} FROM seq`,
    `${seq(TEAMS)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT '${TEAMS_TOP}', ${id(`${TEAM_BASE} + n`)}, 'group', ${now}, 'team ' || n, ${now}, 0 FROM seq`,
    `${seq(TEAMS)} INSERT INTO group_closure (ancestor, descendant, depth)
      SELECT ${id(`${TEAM_BASE} + n`)}, ${id(`${TEAM_BASE} + n`)}, 0 FROM seq
      UNION ALL SELECT '${TEAMS_TOP}', ${id(`${TEAM_BASE} + n`)}, 1 FROM seq
      UNION ALL SELECT '${ROOT_GROUP_ID}', ${id(`${TEAM_BASE} + n`)}, 2 FROM seq`,
    `${seq(USERS)} INSERT INTO user_group_members (group_id, user_id, ctime)
      SELECT ${id(`${TEAM_BASE} + n % ${TEAMS}`)}, ${id(`${USER_BASE} + n`)}, ${now} FROM seq
      UNION ALL SELECT ${id(`${TEAM_BASE} + (n * 7 + 3) % ${TEAMS}`)}, ${id(
      `${USER_BASE} + n`,
    )}, ${now} FROM seq WHERE (n * 7 + 3) % ${TEAMS} <> n % ${TEAMS}`,
  );

  // --- 50,000 rules: a fifth for groups of users, half on tree groups (any level), half on assets; 1 % deny ----
  // Bits: read 2, update 4, create 8, download 256; deny 1.
  const subject = `CASE WHEN n % 5 = 0 THEN ${id(`${TEAM_BASE} + (n / 5) % ${TEAMS}`)} ELSE ${id(`${USER_BASE} + n % ${USERS}`)} END`;
  const subjectType = `CASE WHEN n % 5 = 0 THEN 'group' ELSE 'user' END`;
  const treeTarget = `CASE (n / 2) % 4 WHEN 0 THEN ${id(`${treeNumber(1, 0)} + (n * 13) % 10`)} WHEN 1 THEN ${id(
    `${treeNumber(2, 0)} + (n * 17) % 100`,
  )}
    WHEN 2 THEN ${id(`${treeNumber(3, 0)} + (n * 31) % 1000`)} ELSE ${id(`${treeNumber(4, 0)} + (n * 7919) % 10000`)} END`;
  const object = `CASE WHEN n % 2 = 0 THEN ${treeTarget} ELSE ${id(`${ASSET_BASE} + (n * 104729) % ${ASSETS}`)} END`;
  const acl = `CASE WHEN n % 100 = 7 THEN 1 WHEN n % 3 = 0 THEN 2 | 256 WHEN n % 3 = 1 THEN 2 | 4 | 8 ELSE 2 END`;
  s.push(
    // The reader's one rule that matters: read and download on level-1 group READER_L1.
    `INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      VALUES ('${hexId(RULE_BASE + RULES)}', '${userId(READER)}', 'user', '${treeGroupId(1, READER_L1)}', 'group', 258, ${now}, ${admin})`,
    `${seq(RULES - 1)} INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      SELECT ${id(
        `${RULE_BASE} + n`,
      )}, ${subject}, ${subjectType}, ${object}, CASE WHEN n % 2 = 0 THEN 'group' ELSE 'asset' END, ${acl}, ${now}, ${admin}
      FROM seq WHERE NOT (${subject} = '${userId(READER)}' AND ${object} IN ('${treeGroupId(1, READER_L1)}', '${treeGroupId(
      3,
      READER_L3,
    )}'))`,
    // Inheritance switched off on 100 level-2 and level-4 groups outside the reader's branch.
    `${seq(SWITCHES)} INSERT INTO access_inheritance (entity_id, entity_type, inherit, mtime)
      SELECT CASE WHEN n % 2 = 0 THEN ${id(`${treeNumber(2, 0)} + (n * 3) % 100`)} ELSE ${id(
      `${treeNumber(4, 0)} + (n * 97) % 10000`,
    )} END, 'group', 0, ${now}
      FROM seq WHERE ${id(`${treeNumber(2, 0)} + (n * 3) % 100`)} <> '${treeGroupId(2, Math.floor(READER_L3 / 10))}' OR n % 2 = 1
      ON CONFLICT (entity_id) DO NOTHING`,
  );
  return `${s.join(";\n")};\n`;
}
