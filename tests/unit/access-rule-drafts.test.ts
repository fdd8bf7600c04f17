import { describe, expect, it } from "vitest";
import type { EntityRules } from "../../app/components/access/access-api";
import { draftsOf, emptyDraft, hasChanges, planChanges, type Draft } from "../../app/components/access/rule-drafts";

const id = (n: number) => n.toString(16).padStart(32, "0");

function rule(n: number, acl: EntityRules["rules"][number]["acl"], inherited = false): EntityRules["rules"][number] {
  return {
    rule_id: id(n),
    subj_id: id(100 + n),
    subj_type: n % 2 ? "user" : "group",
    subj_name: `субъект ${n}`,
    obj_id: inherited ? id(900) : id(1),
    obj_type: "group",
    obj_name: "папка",
    acl,
    ctime: null,
    created_by: null,
    inherited,
    from: inherited ? id(900) : id(1),
  };
}

const data: EntityRules = {
  entity_id: id(1),
  entity_type: "group",
  name: "папка",
  inherit: true,
  rules: [rule(1, ["read"]), rule(2, ["read", "download"]), rule(3, ["update"], true)],
};

const fresh = (n: number, acl: Draft["acl"] = ["read"]): Draft => ({
  rule_id: null,
  subj_id: id(200 + n),
  subj_type: "user",
  subj_name: `новый ${n}`,
  acl,
  removed: false,
});

describe("access editor drafts", () => {
  it("drafts only the entity's own rules, and unchanged drafts plan nothing", () => {
    const drafts = draftsOf(data);
    expect(drafts.map((d) => d.rule_id)).toEqual([id(1), id(2)]);
    const plan = planChanges(data, drafts);
    expect(plan).toEqual({ create: [], update: [], delete: [] });
    expect(hasChanges(plan)).toBe(false);
  });

  it("plans creates on the entity, updates of changed levels (order does not matter) and deletes", () => {
    const [a, b] = draftsOf(data);
    const drafts: Draft[] = [
      { ...a, acl: ["read", "download"] },
      { ...b, acl: ["download", "read"] },
      fresh(1, ["read", "delete"]),
      { ...fresh(2), removed: true },
    ];
    expect(planChanges(data, drafts)).toEqual({
      create: [{ subj: id(201), subj_type: "user", obj: id(1), acl: ["read", "delete"] }],
      update: [{ rule_id: id(1), acl: ["read", "download"] }],
      delete: [],
    });
    const removed = planChanges(data, [{ ...a, removed: true }, b]);
    expect(removed).toEqual({ create: [], update: [], delete: [id(1)] });
    expect(hasChanges(removed)).toBe(true);
  });

  it("names a kept rule without levels, but not a removed one", () => {
    const [a, b] = draftsOf(data);
    expect(emptyDraft([{ ...a, acl: [], removed: true }, b])).toBeNull();
    expect(emptyDraft([a, { ...b, acl: [] }])?.rule_id).toBe(id(2));
    expect(emptyDraft([fresh(3, [])])?.subj_name).toBe("новый 3");
  });
});
