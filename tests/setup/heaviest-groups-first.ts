import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The integration tiers' groups (tests/setup/test-groups.ts), heaviest first. Without a results cache — a fresh
 * clone, as CI runs — vitest starts the largest files first, and the eight group files are alike, so they ran in path
 * order and the heaviest could start last on one core while the other idled: on CI (7 December 2026, two cores) group
 * 6 took 324 s of the sharded tier and finished a minute after the rest. The order below is the groups' measured
 * weights across both tiers (heaviest first: 6, 3, 2, 7, 5, 8, 4, 1), so each core ends within a group's length of
 * the other; a file added to a group changes its weight a little and only the packing, never what runs.
 */
const HEAVIEST_FIRST = [6, 3, 2, 7, 5, 8, 4, 1];

export class HeaviestGroupsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const group = /group-(\d+)\.test\.ts$/.exec(spec.moduleId)?.[1];
      const at = group === undefined ? -1 : HEAVIEST_FIRST.indexOf(Number(group));
      return at === -1 ? HEAVIEST_FIRST.length : at;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}
