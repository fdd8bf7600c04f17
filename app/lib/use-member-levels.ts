import { useEffect, useRef, useState } from "react";
import { apiRequest } from "./api-client";

/** The most pairs POST /api/auth/entity-user-access takes in one call. */
const BATCH = 200;

/** The caller's own levels on many entities in one call per 200 (no `user`: one's own levels need no acl). */
export async function levelsOfMany(ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const pairs = ids.slice(i, i + BATCH).map((entity) => ({ entity }));
    const answer = await apiRequest<{ entity: string; acl: string[] }[]>("/api/auth/entity-user-access", {
      method: "POST",
      body: pairs,
      toast: false,
    });
    for (const row of answer) out.set(row.entity, row.acl);
  }
  return out;
}

/**
 * The caller's levels on the members on screen, asked in batches as pages arrive (never one call per item, and never
 * before the page has shown: until an answer comes, the folder's levels stand for its members). `key` restarts the
 * cache, e.g. when the folder changes; a failed batch leaves its members on the folder's levels.
 */
export function useMemberLevels(key: string, ids: readonly string[]): ReadonlyMap<string, string[]> {
  const [levels, setLevels] = useState<ReadonlyMap<string, string[]>>(new Map());
  const asked = useRef(new Set<string>());
  const generation = useRef(0);

  useEffect(() => {
    generation.current += 1;
    asked.current = new Set();
    setLevels(new Map());
  }, [key]);

  useEffect(() => {
    const fresh = ids.filter((id) => !asked.current.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) asked.current.add(id);
    const mine = generation.current;
    levelsOfMany(fresh).then(
      (answer) => mine === generation.current && setLevels((known) => new Map([...known, ...answer])),
      () => undefined,
    );
  }, [ids]);

  return levels;
}
