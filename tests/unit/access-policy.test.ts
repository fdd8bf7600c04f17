import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ACCESS_LEVELS,
  ALL_GRANTS,
  DENY_BIT,
  effectiveRuleMask,
  grantingBits,
  heldMask,
  holds,
  insideChroot,
  levelBit,
  levelsOf,
  maskOf,
  SELF_PATH,
  type AccessLevel,
  type ChainRow,
} from "../../workers/services/access/access-policy";

/**
 * The evaluator against a naive model: a random forest of groups, assets listed in any number of them, inheritance
 * switches, and rules of the user and of groups of users. The model walks parent links recursively; the module
 * under test sees only the flat chain rows the check query returns (closure rows with depths).
 */
interface Model {
  /** parent index per group; -1 = top level */
  parents: number[];
  /** groups each asset is listed in */
  assets: number[][];
  /** inheritance switch per group, then per asset */
  groupInherit: boolean[];
  assetInherit: boolean[];
  /** rules: subject 0 = the user, 1..k = groups of users; on group i (kind group) or asset i */
  rules: { subject: number; kind: "group" | "asset"; target: number; mask: number }[];
  /** which subjects apply to the user (subject 0 always does) */
  memberOf: boolean[];
}

const SUBJECTS = 3;

const modelArb: fc.Arbitrary<Model> = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    parents: fc.tuple(...Array.from({ length: n }, (_, i) => fc.integer({ min: -1, max: i - 1 }))),
    assets: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), { maxLength: 4 }),
    groupInherit: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    assetInherit: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    rules: fc.array(
      fc.record({
        subject: fc.integer({ min: 0, max: SUBJECTS - 1 }),
        kind: fc.constantFrom("group" as const, "asset" as const),
        target: fc.integer({ min: 0, max: n - 1 }),
        mask: fc.integer({ min: 1, max: ALL_GRANTS | DENY_BIT }),
      }),
      { maxLength: 12 },
    ),
    memberOf: fc.tuple(fc.constant(true), fc.boolean(), fc.boolean()),
  }),
);

function rulesOn(m: Model, kind: "group" | "asset", target: number): number[] {
  return m.rules.filter((r) => r.kind === kind && r.target === target && m.memberOf[r.subject]).map((r) => r.mask);
}

/** Reference: a group's mask is its own rules plus, if it inherits, its parent's mask. */
function refGroupMask(m: Model, g: number): number {
  const own = rulesOn(m, "group", g).reduce((a, b) => a | b, 0);
  if (!m.groupInherit[g] || m.parents[g] < 0) return own;
  return own | refGroupMask(m, m.parents[g]);
}

function refAssetMask(m: Model, a: number): number {
  const own = rulesOn(m, "asset", a).reduce((x, y) => x | y, 0);
  if (!m.assetInherit[a]) return own;
  return m.assets[a].reduce((mask, g) => mask | refGroupMask(m, g), own);
}

function ancestors(m: Model, g: number): { node: number; depth: number }[] {
  const out: { node: number; depth: number }[] = [];
  for (let node = g, depth = 0; node >= 0; node = m.parents[node], depth++) out.push({ node, depth });
  return out;
}

const gid = (i: number) => `g${i}`;

/** What the check query returns: one row per (node, rule) and a null-acl row for nodes without rules. */
function nodeRows(
  m: Model,
  path: string,
  kind: "group" | "asset",
  node: number,
  nodeId: string,
  depth: number,
  inherit: boolean,
): ChainRow[] {
  const masks = rulesOn(m, kind, node);
  if (masks.length === 0) return [{ path, node: nodeId, depth, inherit, acl: null }];
  return masks.map((acl) => ({ path, node: nodeId, depth, inherit, acl }));
}

function groupChain(m: Model, g: number, path = gid(g), offset = 0): ChainRow[] {
  return ancestors(m, g).flatMap(({ node, depth }) => nodeRows(m, path, "group", node, gid(node), depth + offset, m.groupInherit[node]));
}

function assetChain(m: Model, a: number): ChainRow[] {
  return [...nodeRows(m, SELF_PATH, "asset", a, `a${a}`, 0, m.assetInherit[a]), ...m.assets[a].flatMap((g) => groupChain(m, g, gid(g), 1))];
}

describe("effectiveRuleMask", () => {
  it("matches the recursive model for groups and assets over random trees, rules and switches", () => {
    fc.assert(
      fc.property(modelArb, (m) => {
        m.parents.forEach((_, g) => expect(effectiveRuleMask(groupChain(m, g))).toBe(refGroupMask(m, g)));
        m.assets.forEach((_, a) => expect(effectiveRuleMask(assetChain(m, a))).toBe(refAssetMask(m, a)));
      }),
      { numRuns: 400 },
    );
  });

  it("decides every level as the model does (deny overrides, superuser implies all, owners and admins everything)", () => {
    fc.assert(
      fc.property(modelArb, fc.boolean(), fc.boolean(), (m, isOwner, isAdmin) => {
        m.parents.forEach((_, g) => {
          const rules = refGroupMask(m, g);
          const held = heldMask({ isAdmin, isOwner, inChroot: true, ruleMask: effectiveRuleMask(groupChain(m, g)) });
          for (const level of ACCESS_LEVELS) {
            const expected =
              level !== "deny" &&
              (isAdmin ||
                isOwner ||
                ((rules & DENY_BIT) === 0 && ((rules & levelBit("superuser")) !== 0 || (rules & levelBit(level)) !== 0)));
            expect(holds(held, level)).toBe(expected);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("confines to the chroot: a node of some chain must be a chroot group", () => {
    fc.assert(
      fc.property(modelArb, fc.integer({ min: 0, max: 11 }), (m, root) => {
        const chroot = [gid(root % m.parents.length)];
        m.parents.forEach((_, g) => {
          const inside = ancestors(m, g).some((a) => gid(a.node) === chroot[0]);
          expect(insideChroot(groupChain(m, g), chroot)).toBe(inside);
        });
        m.assets.forEach((groups, a) => {
          const inside = groups.some((g) => ancestors(m, g).some((x) => gid(x.node) === chroot[0]));
          expect(insideChroot(assetChain(m, a), chroot)).toBe(inside);
        });
      }),
    );
  });
});

describe("levels and decisions", () => {
  it("maps levels to bits and back", () => {
    expect(maskOf(["read", "download"])).toBe(levelBit("read") | levelBit("download"));
    expect(levelsOf(maskOf(["deny", "execute"]))).toEqual(["deny", "execute"]);
    expect(levelsOf(ALL_GRANTS)).toEqual(ACCESS_LEVELS.filter((l) => l !== "deny"));
    expect(grantingBits("update")).toBe(levelBit("update") | levelBit("superuser"));
  });

  const rows = (...chain: [string, number, boolean, AccessLevel[] | null][]): ChainRow[] =>
    chain.map(([node, depth, inherit, acl]) => ({ path: "g", node, depth, inherit, acl: acl ? maskOf(acl) : null }));

  it("stops inheritance at a switched-off node but keeps that node's own rules", () => {
    const chain = rows(["leaf", 0, true, null], ["mid", 1, false, ["update"]], ["top", 2, true, ["read"]]);
    expect(levelsOf(effectiveRuleMask(chain))).toEqual(["update"]);
  });

  it("lets a deny anywhere on the effective chain override every grant, but not ownership", () => {
    const ruleMask = effectiveRuleMask(rows(["leaf", 0, true, ["superuser"]], ["top", 1, true, ["deny"]]));
    expect(heldMask({ isAdmin: false, isOwner: false, inChroot: true, ruleMask })).toBe(0);
    expect(heldMask({ isAdmin: false, isOwner: true, inChroot: true, ruleMask })).toBe(ALL_GRANTS);
  });

  it("gives nothing outside the chroot, even to owners; administrators are never confined", () => {
    expect(heldMask({ isAdmin: false, isOwner: true, inChroot: false, ruleMask: ALL_GRANTS })).toBe(0);
    expect(heldMask({ isAdmin: true, isOwner: false, inChroot: false, ruleMask: DENY_BIT })).toBe(ALL_GRANTS);
  });

  it("unites the chains of an asset listed in several groups; its own switch cuts them all", () => {
    const asset = (inherit: boolean): ChainRow[] => [
      { path: SELF_PATH, node: "a", depth: 0, inherit, acl: maskOf(["download"]) },
      { path: "x", node: "x", depth: 1, inherit: true, acl: maskOf(["read"]) },
      { path: "y", node: "y", depth: 1, inherit: true, acl: maskOf(["update"]) },
    ];
    expect(levelsOf(effectiveRuleMask(asset(true)))).toEqual(["read", "update", "download"]);
    expect(levelsOf(effectiveRuleMask(asset(false)))).toEqual(["download"]);
  });
});
