import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { openLibraryShard, placeOfIdAfterRefusal } from "../../db/library-directory";
import { countUseStatement, countViewsStatement } from "../../db/repositories/shortlink.repository";
import { isLibraryMoving } from "../../lib/errors";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import type { RequestContext } from "../access";

/** Uses of one link to count: opens of its page, or downloads through it. */
export interface LinkUse {
  linkId: string;
  /** the file or folder it shares (places it in its library) */
  entityId: string;
  kind: "view" | "download";
  n: number;
  last: number;
}

type CountingShard = Pick<LibraryShardDO, "countLinkUses">;

/**
 * Counts a link's uses beside their audit rows, in one batch. A link to a library that lives in its shard is counted
 * there (decision 043, «Writes»): the catalog refuses the count (its copy of the library is the shard's to change),
 * so the audit rows — global — are written alone and the counts go to the shard, which writes them back with its
 * next writeback. During the seconds a library is switched its counts are lost, and logged; the page still answers.
 */
export async function countLinkUses(rc: RequestContext, uses: readonly LinkUse[], audits: readonly Statement[]): Promise<void> {
  const counts = uses.map((u) =>
    u.kind === "view" && u.n !== 1 ? countViewsStatement(rc.db, u.linkId, u.n, u.last) : countUseStatement(rc.db, u.linkId, u.kind, u.last),
  );
  try {
    await runBatch(rc.db, [...counts, ...audits]);
    return;
  } catch (error) {
    if (!isLibraryMoving(error)) throw error;
  }
  await runBatch(rc.db, [...audits]);
  for (const use of uses) {
    const place = await placeOfIdAfterRefusal(rc.db.$client, use.entityId);
    if (place.place === "shard") {
      const shard = (await openLibraryShard(rc.env, place)) as unknown as CountingShard;
      await shard.countLinkUses([use]);
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
}
