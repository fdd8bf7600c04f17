import type { Condition } from "./setup";

/** What conditions are judged on: facts about one asset, read in one go (automation.repository `assetFacts`). */
export interface AssetFacts {
  id: string;
  name: string;
  mime: string;
  /** bytes of the latest version's main variant (0 while nothing is uploaded) */
  size: number;
  /** groups listing the asset directly */
  groups: ReadonlySet<string>;
  /** those groups and every ancestor of them */
  groupsWithAncestors: ReadonlySet<string>;
  tags: ReadonlySet<string>;
}

/** The result of judging a run's conditions: the first failing one, for the log. */
export type ConditionVerdict = { ok: true } | { ok: false; failed: Condition; index: number };

function baseMime(mime: string): string {
  return mime.split(";")[0].trim().toLowerCase();
}

/** Whether one condition holds for the asset. */
export function conditionHolds(condition: Condition, facts: AssetFacts): boolean {
  switch (condition.kind) {
    case "mimetype": {
      const mime = baseMime(facts.mime);
      const value = condition.value.toLowerCase();
      if (condition.op === "is") return mime === baseMime(value);
      if (condition.op === "is-not") return mime !== baseMime(value);
      return mime.startsWith(value);
    }
    case "size":
      if (condition.op === "gt") return facts.size > condition.value;
      if (condition.op === "gte") return facts.size >= condition.value;
      if (condition.op === "lt") return facts.size < condition.value;
      return facts.size <= condition.value;
    case "group": {
      const set = condition.include_subgroups ? facts.groupsWithAncestors : facts.groups;
      return condition.op === "in" ? set.has(condition.group_id) : !set.has(condition.group_id);
    }
    case "tag":
      return condition.op === "has" ? facts.tags.has(condition.tag_id) : !facts.tags.has(condition.tag_id);
  }
}

/**
 * Judges every condition (all must hold). Without an asset, conditions cannot hold: a run about nothing passes
 * only when there are no conditions.
 * @example evaluateConditions([{ kind: "mimetype", op: "starts-with", value: "image/" }], facts)
 */
export function evaluateConditions(conditions: readonly Condition[], facts: AssetFacts | null): ConditionVerdict {
  for (const [index, condition] of conditions.entries()) {
    if (!facts || !conditionHolds(condition, facts)) return { ok: false, failed: condition, index };
  }
  return { ok: true };
}
