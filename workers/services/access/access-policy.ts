/**
 * The pure decision logic of access control (no I/O): level bitmasks, the effective rule mask of an entity from
 * the rows one check query returns, and the final decision. docs/decisions/007-access-control.md explains the
 * semantics; tests/unit/access-policy.test.ts checks them against a naive recursive model with fast-check.
 */

/** The ten access levels of SPEC §6; a rule's `acl` is a bitmask where bit i stands for level i. */
export const ACCESS_LEVELS = ["deny", "read", "update", "create", "delete", "acl", "group", "superuser", "download", "execute"] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export function levelBit(level: AccessLevel): number {
  return 1 << ACCESS_LEVELS.indexOf(level);
}

export const DENY_BIT = levelBit("deny");
export const SUPERUSER_BIT = levelBit("superuser");
/** Every level except deny: what admins and owners hold, and what superuser implies. */
export const ALL_GRANTS = ACCESS_LEVELS.reduce((mask, level) => (level === "deny" ? mask : mask | levelBit(level)), 0);
/** The largest valid `acl` value. */
export const ACL_MASK_LIMIT = ALL_GRANTS | DENY_BIT;

export function maskOf(levels: readonly AccessLevel[]): number {
  return levels.reduce((mask, level) => mask | levelBit(level), 0);
}

export function levelsOf(mask: number): AccessLevel[] {
  return ACCESS_LEVELS.filter((level) => (mask & levelBit(level)) !== 0);
}

/** The bits a rule must carry to grant `level` (the level itself, or superuser). */
export function grantingBits(level: AccessLevel): number {
  return level === "deny" ? DENY_BIT : levelBit(level) | SUPERUSER_BIT;
}

/**
 * One row of the check query: a node on one chain of the entity, with the inheritance switch of that node and
 * the `acl` of one rule of the caller's subjects on it (null when the node has none).
 * - For a group, one chain: `path` = the group, nodes = the group (depth 0) and its ancestors (depth 1, 2, ...).
 * - For an asset, the asset itself (`path` = SELF_PATH, depth 0) plus one chain per group it is a live member of:
 *   `path` = that group, nodes = the group (depth 1) and its ancestors (depth 2, ...).
 */
export interface ChainRow {
  path: string;
  node: string;
  depth: number;
  inherit: boolean;
  acl: number | null;
}

export const SELF_PATH = "";

/**
 * The union of the rules that reach the entity. On each chain, rules count from the entity up to and including
 * the nearest node whose inheritance is switched off (its own rules still count, its ancestors' do not). An asset's
 * own switch cuts every chain; its chains (one per group it is listed in) are united.
 */
export function effectiveRuleMask(rows: readonly ChainRow[]): number {
  const self = rows.filter((r) => r.path === SELF_PATH);
  const selfMask = self.reduce((mask, r) => mask | (r.acl ?? 0), 0);
  const chains = new Map<string, ChainRow[]>();
  for (const r of rows) {
    if (r.path === SELF_PATH) continue;
    const chain = chains.get(r.path) ?? [];
    chain.push(r);
    chains.set(r.path, chain);
  }
  if (self.some((r) => !r.inherit)) return selfMask;
  let mask = selfMask;
  for (const chain of chains.values()) {
    const cut = chain.reduce((d, r) => (r.inherit ? d : Math.min(d, r.depth)), Infinity);
    for (const r of chain) if (r.depth <= cut) mask |= r.acl ?? 0;
  }
  return mask;
}

/** Whether a chroot confines an entity: some node of one of its chains is a chroot group. */
export function insideChroot(rows: readonly ChainRow[], chroot: readonly string[]): boolean {
  if (chroot.length === 0) return true;
  const roots = new Set(chroot);
  return rows.some((r) => r.path !== SELF_PATH && roots.has(r.node));
}

export interface Decision {
  isAdmin: boolean;
  isOwner: boolean;
  /** false when the caller is chrooted and the entity lies outside every chroot subtree */
  inChroot: boolean;
  /** effectiveRuleMask of the entity for the caller's subjects */
  ruleMask: number;
}

/**
 * The levels the caller holds: administrators everything; outside the chroot nothing; owners everything on what
 * they own; otherwise the rules' union, where deny overrides everything and superuser implies every level.
 */
export function heldMask(d: Decision): number {
  if (d.isAdmin) return ALL_GRANTS;
  if (!d.inChroot) return 0;
  if (d.isOwner) return ALL_GRANTS;
  if (d.ruleMask & DENY_BIT) return 0;
  if (d.ruleMask & SUPERUSER_BIT) return ALL_GRANTS;
  return d.ruleMask & ALL_GRANTS;
}

export function holds(mask: number, level: AccessLevel): boolean {
  return level !== "deny" && (mask & levelBit(level)) !== 0;
}
