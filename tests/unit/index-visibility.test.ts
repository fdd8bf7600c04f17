import { describe, expect, it } from "vitest";
import { indexMatch, MAX_VISIBILITY_TERMS, visibilityExpression } from "../../workers/services/search/index-visibility";

const reader = { userId: "u1", chroot: [] as string[], rules: true };

describe("visibilityExpression (decision 039)", () => {
  it("is the owner alone without a granting rule", () => {
    expect(visibilityExpression(reader, { grants: [], denies: ["d1"] })).toBe('{acl} : ("ou1")');
  });

  it("adds every granting node, and subtracts the denying ones from them but never from the owner's own", () => {
    expect(visibilityExpression(reader, { grants: ["g1", "g2"], denies: [] })).toBe('{acl} : (("ou1" OR "ag1" OR "ag2"))');
    expect(visibilityExpression(reader, { grants: ["g1"], denies: ["d1", "d2"] })).toBe(
      '{acl} : (("ou1" OR ("ag1" NOT ("ad1" OR "ad2"))))',
    );
  });

  it("confines to the chroot and the token scope, each below its roots whether rules reach there or not", () => {
    expect(visibilityExpression({ ...reader, chroot: ["c1"], scope: ["s1", "s2"] }, { grants: ["g1"], denies: [] })).toBe(
      '{acl} : (("ou1" OR "ag1") AND (("ac1" OR "bc1") OR ("ou1" AND "unfiled")) AND (("as1" OR "bs1" OR "as2" OR "bs2") OR ("ou1" AND "unfiled")))',
    );
  });

  it("leaves the decision to SQL for too many terms or an id that is no index token", () => {
    const many = Array.from({ length: MAX_VISIBILITY_TERMS }, (_, i) => `g${i}`);
    expect(visibilityExpression(reader, { grants: many, denies: [] })).toBeNull();
    expect(visibilityExpression(reader, { grants: ['g" OR "x'], denies: [] })).toBeNull();
  });
});

describe("indexMatch", () => {
  it("keeps the user's words out of the visibility column", () => {
    expect(indexMatch('"пляж"*', null)).toBe('{name meta content} : ("пляж"*)');
    expect(indexMatch('"пляж"*', '{acl} : ("ou1")')).toBe('{name meta content} : ("пляж"*) AND {acl} : ("ou1")');
  });
});
