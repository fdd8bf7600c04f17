import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { libraryShard } from "../../db/library-directory";
import { applyWriteback, carriesAnything, eventsOf, outboundIds, type Writeback } from "../../db/library-writeback";
import type { TaskMessageInput } from "../../queue/messages";

type WritebackShard = Pick<LibraryShardDO, "writeback" | "writtenBack">;

/** How long the minute cron writes back what routed writes left behind. */
const CRON_MS = 10_000;

/**
 * A routed write's changes written back to the catalog (decision 043, «Writes»), then forgotten by the shard; while
 * the shard's log holds more (a writeback left behind by a Worker that died), the next ones follow. The events it
 * carried wake the outbox's dispatcher, as a write in the catalog does.
 */
export async function writeBack(
  env: Env,
  shard: WritebackShard,
  first: Writeback,
  o: { applied?: boolean; deadline?: number } = {},
): Promise<number> {
  const deadline = o.deadline ?? Date.now() + CRON_MS;
  let wb = first;
  let written = 0;
  for (let applied = o.applied ?? false; ; applied = false) {
    if (!applied) await applyWriteback(env.DB, wb);
    if (eventsOf(wb).length > 0) {
      // As a write in the catalog does once its batch has committed: the outbox's and the inbox's dispatchers.
      const wake: TaskMessageInput[] = [{ op: "deliver-events" }, { op: "deliver-notifications" }];
      await env.TASKS.sendBatch(wake.map((body) => ({ body })));
    }
    await shard.writtenBack(wb.seq, outboundIds(wb));
    written += wb.rows.reduce((n, t) => n + t.rows.length, 0) + wb.gone.reduce((n, g) => n + g.keys.length, 0);
    if (!wb.more || Date.now() >= deadline) return written;
    wb = await shard.writeback(wb.library);
  }
}

/** The minute cron: every switched library's changes not yet written back (what a Worker that died left). */
export async function writeBackShards(env: Env): Promise<{ libraries: number; rows: number }> {
  const { results } = await env.DB.prepare("SELECT library_id AS id, shard FROM library_directory WHERE state = 'shard'").all<{
    id: string;
    shard: number;
  }>();
  const deadline = Date.now() + CRON_MS;
  let rows = 0;
  for (const library of results) {
    if (Date.now() >= deadline) break;
    try {
      const shard = libraryShard(env, library.shard) as unknown as WritebackShard;
      const wb = await shard.writeback(library.id);
      if (!carriesAnything(wb)) continue;
      rows += await writeBack(env, shard, wb, { deadline });
    } catch (error) {
      // One shard not answering leaves the others' writebacks to run; its own comes next minute.
      console.error(JSON.stringify({ level: "error", op: "shard-writeback", library: library.id, message: String(error) }));
    }
  }
  return { libraries: results.length, rows };
}
