/**
 * The search index's databases in shard order (decision 042): `SEARCH`, then `SEARCH_1`, `SEARCH_2`, … as far as
 * they are bound without a gap. A document lives in shard `doc_id mod n`; a different number of shards needs the
 * rebuild (a `reindex` task of the root), which moves every document where it now belongs.
 */
export function searchShardBindings(env: Env): D1Database[] {
  const named = env as unknown as Record<string, D1Database | undefined>;
  const shards = [env.SEARCH];
  for (let i = 1; named[`SEARCH_${i}`]; i++) shards.push(named[`SEARCH_${i}`]!);
  return shards;
}

/** The binding name of shard i. */
export const searchShardName = (i: number) => (i === 0 ? "SEARCH" : `SEARCH_${i}`);
