import type { Visibility } from "../../db/repositories/access.repository";

/**
 * Visibility decided inside the search index (decision 039): each document's `acl` column carries `o<owner>`,
 * `a<node>` for every node whose rules reach it, `b<node>` for the other nodes above it, and `unfiled` for a file
 * listed nowhere (migration 0055). A reader's visibility — the same decision as `visibleSql` — becomes one FTS5
 * expression over that column, so the index drops what the reader may not see while it matches, at the cost of
 * merging a few doclists, instead of each match being walked through the rule checks.
 */

/** Past this many terms the expression is no longer cheap (and nears the statement's size limit): SQL decides. */
export const MAX_VISIBILITY_TERMS = 300;

/** Ids as the index holds them (hex); anything else cannot be a token and is left to SQL. */
const TOKEN_ID = /^[0-9a-z]{1,64}$/;

const term = (kind: "a" | "b" | "o", id: string) => `"${kind}${id}"`;
const any = (terms: string[]) => (terms.length === 1 ? terms[0] : `(${terms.join(" OR ")})`);

/**
 * The `{acl}` condition of a reader's query, or null when SQL must decide (too many terms, or an id the index cannot
 * hold). `grants` are the nodes of the caller's rules granting read, `denies` those of rules carrying deny.
 * @example visibilityExpression({ userId: "u1", chroot: [], rules: true }, { grants: ["g1"], denies: [] })
 * // '{acl} : (("ou1" OR "ag1"))'
 */
export function visibilityExpression(vis: Visibility, rules: { grants: readonly string[]; denies: readonly string[] }): string | null {
  const confinements = [vis.chroot, vis.scope ?? []].filter((roots) => roots.length > 0);
  const ids = [vis.userId, ...rules.grants, ...rules.denies, ...confinements.flat()];
  if (ids.length + confinements.flat().length > MAX_VISIBILITY_TERMS || !ids.every((id) => TOKEN_ID.test(id))) return null;
  const own = term("o", vis.userId);
  const granted = rules.grants.map((id) => term("a", id));
  const denied = rules.denies.map((id) => term("a", id));
  // The owner sees their own, whatever the rules; anyone else needs a granting rule that no deny cancels.
  const reached =
    granted.length === 0 ? own : denied.length === 0 ? any([own, ...granted]) : `(${own} OR (${any(granted)} NOT ${any(denied)}))`;
  // Inside every confinement: below one of its roots, reached by rules or not, or an owner's unfiled file.
  const inside = confinements.map((roots) => `(${any(roots.flatMap((id) => [term("a", id), term("b", id)]))} OR (${own} AND "unfiled"))`);
  return `{acl} : (${[reached, ...inside].join(" AND ")})`;
}

/** The user's words, matched in the text columns only (never in `acl`), and the caller's visibility when given. */
export function indexMatch(words: string, visibility: string | null): string {
  const text = `{name meta content} : (${words})`;
  return visibility ? `${text} AND ${visibility}` : text;
}
