import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { knownPlaceOfId, openLibraryShard, placeOfIdAfresh, type LibraryPlace } from "../../db/library-directory";
import { metered } from "../../db/round-trips";
import { countUseStatement, countViewsStatement } from "../../db/repositories/shortlink.repository";
import { isLibraryMoving } from "../../lib/errors";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import { onShard, type RequestContext } from "../access";

/** Uses of one link to count: opens of its page, or downloads through it. */
export interface LinkUse {
  linkId: string;
  /** the file or folder it shares (places it in its library) */
  entityId: string;
  kind: "view" | "download";
  n: number;
  last: number;
  /** where the entity's library lives, when the caller has asked already */
  place?: LibraryPlace;
}

type CountingShard = Pick<LibraryShardDO, "countLinkUses">;

/**
 * Counts a link's uses beside their audit rows, in one batch. A link to a library that lives in its shard is counted
 * there (decision 043, «Writes»): the catalog refuses the count (its copy of the library is the shard's to change),
 * so the audit rows — global — are written alone and the counts go to the shard, which writes them back with its
 * next writeback. Where the isolate already knows every link's library to be in its shard, both go at once (no
 * refused batch first: the page then waits no longer than in the catalog, decision 030). During the seconds a library
 * is switched its counts are lost, and logged; the page still answers.
 */
export async function countLinkUses(rc: RequestContext, uses: readonly LinkUse[], audits: readonly Statement[]): Promise<void> {
  const placeOf = (u: LinkUse) => u.place ?? knownPlaceOfId(u.entityId);
  // In a shard (a link opened there), its own database is where both go.
  const inShard = onShard(rc);
  const settled = !inShard && uses.length > 0 && uses.every((u) => placeOf(u)?.place === "shard");
  if (!settled) {
    const counts = uses.map((u) =>
      u.kind === "view" && u.n !== 1
        ? countViewsStatement(rc.db, u.linkId, u.n, u.last)
        : countUseStatement(rc.db, u.linkId, u.kind, u.last),
    );
    try {
      await runBatch(rc.db, [...counts, ...audits]);
      return;
    } catch (error) {
      if (inShard || !isLibraryMoving(error)) throw error;
    }
  }
  await Promise.all([
    audits.length > 0 ? runBatch(rc.db, [...audits]) : null,
    ...uses.map(async (use) => countInShard(rc, use, (settled && placeOf(use)) || (await placeOfIdAfresh(rc.db.$client, use.entityId)))),
  ]);
}

async function countInShard(rc: RequestContext, use: LinkUse, place: LibraryPlace): Promise<void> {
  if (place.place === "shard") {
    const shard = (await openLibraryShard(rc.env, place)) as unknown as CountingShard;
    await metered(rc.dbSession?.meter, 1, () => shard.countLinkUses([use]));
  } else if (place.place === "moving") {
    console.warn(
      JSON.stringify({
        level: "warn",
        requestId: rc.requestId,
        op: "link-use",
        message: "not counted: library switching",
        link: use.linkId,
      }),
    );
  }
}
