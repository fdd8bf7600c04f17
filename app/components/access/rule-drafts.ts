import type { AccessLevel, EntityRules, NewRule } from "./access-api";

/** One own rule of an entity as the editor holds it: an existing rule (with its id) or a new one, maybe marked for removal. */
export interface Draft {
  rule_id: string | null;
  subj_id: string;
  subj_type: "user" | "group";
  subj_name: string | null;
  acl: AccessLevel[];
  removed: boolean;
}

export interface RuleChanges {
  create: NewRule[];
  update: { rule_id: string; acl: AccessLevel[] }[];
  delete: string[];
}

const sameLevels = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((l) => b.includes(l));

/** The entity's own rules (not the inherited ones) as drafts. */
export function draftsOf(data: EntityRules): Draft[] {
  return data.rules
    .filter((r) => !r.inherited)
    .map((r) => ({ rule_id: r.rule_id, subj_id: r.subj_id, subj_type: r.subj_type, subj_name: r.subj_name, acl: r.acl, removed: false }));
}

/**
 * The acl-list batch that turns the saved rules into the drafts: new rows are created, changed levels updated,
 * removed rules deleted; a new row removed again and an unchanged rule send nothing.
 */
export function planChanges(data: EntityRules, drafts: readonly Draft[]): RuleChanges {
  const saved = new Map(data.rules.filter((r) => !r.inherited).map((r) => [r.rule_id, r.acl]));
  return {
    create: drafts
      .filter((d) => !d.rule_id && !d.removed)
      .map((d) => ({ subj: d.subj_id, subj_type: d.subj_type, obj: data.entity_id, acl: d.acl })),
    update: drafts
      .filter((d) => d.rule_id && !d.removed && !sameLevels(d.acl, saved.get(d.rule_id) ?? []))
      .map((d) => ({ rule_id: d.rule_id!, acl: d.acl })),
    delete: drafts.filter((d) => d.rule_id && d.removed).map((d) => d.rule_id!),
  };
}

export const hasChanges = (c: RuleChanges) => c.create.length + c.update.length + c.delete.length > 0;

/** A kept rule left without any level: the API would refuse it, so the editor names it first. */
export const emptyDraft = (drafts: readonly Draft[]) => drafts.find((d) => !d.removed && d.acl.length === 0) ?? null;
