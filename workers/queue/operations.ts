import { and, isNotNull, lt, or } from "drizzle-orm";
import { findVariant } from "../db/repositories/asset-versions.repository";
import { selectExpiredTrash } from "../db/repositories/asset.repository";
import { DEFAULT_STORAGE_ID, findStorage } from "../db/repositories/storage.repository";
import { switchedLibraries } from "../db/library-directory";
import { detachFromParentStatement, runBatch } from "../db/repositories/group.repository";
import { expiredTrashTops } from "../db/repositories/group-reads.repository";
import { deleteDeadSessions } from "../db/repositories/session.repository";
import { oneTimeTokens, tradedTokens } from "../db/schema/index";
import { ROOT_GROUP_ID } from "../lib/ids";
import { DAY_MS, TRASH_RETENTION_MS } from "../lib/trash";
import { inLibraryOf, purgeAssets, runOverShard, runPurgeGroup } from "../services/library";
import type { RequestContext } from "../services/access";
import { runAbortStaleMultipart, runHashVariant } from "../services/uploads";
import type { AbortUploadMessage, ProcessVariantMessage, PurgeTrashMessage, TaskMessage, TaskMessageInput } from "./messages";
import { runDeliverEvents, runDeliverNotifications } from "./deliver";
import { backgroundDb, withTaskContext } from "./task-context";

/**
 * Runs one operation; shared by the queue consumer and automation workflow steps. Returns a short summary for
 * logs. Throws to ask for a retry.
 */
export async function runOperation(env: Env, message: TaskMessage): Promise<string> {
  switch (message.op) {
    case "cleanup-sessions": {
      const db = backgroundDb(env, message.op);
      const cutoff = Date.now() - message.olderThanDays * DAY_MS;
      const [sessions, tokens, traded] = await db.batch([
        deleteDeadSessions(db, cutoff),
        db
          .delete(oneTimeTokens)
          .where(or(lt(oneTimeTokens.expiresAt, cutoff), and(isNotNull(oneTimeTokens.usedAt), lt(oneTimeTokens.usedAt, cutoff)))),
        // a traded access token that can no longer verify needs no record of its trade (robot tokens have no expiry here: kept)
        db.delete(tradedTokens).where(lt(tradedTokens.expiresAt, cutoff)),
      ]);
      return `removed ${sessions.meta.changes} dead refresh tokens, ${tokens.meta.changes} one-time tokens and ${traded.meta.changes} traded-token records`;
    }
    case "purge-group":
      // Over its library's shard when it lives in one (decision 043).
      return withTaskContext(env, message.op, (rc) => inLibraryOf(rc, message.groupId, (rc) => runPurgeGroup(rc, message)));
    case "purge-trash":
      return withTaskContext(env, message.op, (rc) => runPurgeTrash(rc, message));
    case "abort-upload":
      return runAbortUpload(env, message);
    case "hash-variant":
      return withTaskContext(env, message.op, (rc) => runHashVariant(rc, message));
    // The task runner pulls in the WebAssembly codecs: loaded when a message needs it, not by every importer.
    case "process-variant":
      return runProcessVariants(env, [message]);
    case "task-wakeup":
      return withTaskContext(env, message.op, async (rc) => (await import("../services/tasks/runner")).runTaskWakeup(rc, message));
    case "abort-stale-multipart":
      return withTaskContext(env, message.op, (rc) => runAbortStaleMultipart(rc, message));
    case "deliver-events":
      return runDeliverEvents(env);
    case "deliver-notifications":
      return runDeliverNotifications(env);
  }
}

/** `process-variant` messages of one batch, together (one tech-fields task per owner, see `runProcessVariants`). */
export function runProcessVariants(env: Env, messages: readonly ProcessVariantMessage[]): Promise<string> {
  return withTaskContext(env, "process-variant", async (rc) => (await import("../services/tasks/runner")).runProcessVariants(rc, messages));
}

/**
 * The `abort-upload` operation: drops the open multipart upload of a pending variant (its browser went away, see
 * UploadQueueDO). Only R2-backed storages take multipart uploads; a variant past pending (saving, committed), a
 * variant that is gone, or an upload R2 no longer knows leaves nothing to do.
 */
export async function runAbortUpload(env: Env, message: AbortUploadMessage): Promise<string> {
  const db = backgroundDb(env, message.op);
  const variant = await findVariant(db, message.variantId);
  if (!variant || variant.status !== "pending") return `variant ${message.variantId}: nothing to abort`;
  const r2 = variant.storageId === DEFAULT_STORAGE_ID || (await findStorage(db, variant.storageId))?.kind === "r2";
  if (!r2) return `variant ${message.variantId}: its storage takes no multipart uploads`;
  try {
    await env.MEDIA.resumeMultipartUpload(variant.storageKey, message.uploadId).abort();
  } catch (error) {
    if (!/does not exist|NoSuchUpload|\(10024\)/i.test(String(error))) throw error;
    return `variant ${message.variantId}: the upload was already gone`;
  }
  return `variant ${message.variantId}: multipart upload aborted`;
}

/**
 * The `purge-trash` operation (retention): everything trashed more than `TRASH_RETENTION_DAYS` ago goes for good.
 * Groups first: each chunk of expired subtree tops is detached from its parents (restore now answers "purging") and
 * handed to `purge-group`, one message each. Then assets: each chunk of expired trashed assets is purged with
 * `purgeAssets`. After `budget` chunks the run queues its continuation (same cutoff, resuming after the last item).
 */
export async function runPurgeTrash(rc: RequestContext, job: PurgeTrashMessage): Promise<string> {
  // A library in its shard is purged over it, in messages of its own; the catalog's sweep leaves its rows alone.
  if (job.library) {
    const place = (await switchedLibraries(rc.env.DB)).find((l) => l.library === job.library);
    if (!place) return `library ${job.library}: not in a shard, nothing to purge there`;
    return runOverShard(rc, place, { caller: null, globals: [] }, (rc) => purgeTrash(rc, job));
  }
  if (job.before === undefined) {
    const libraries = await switchedLibraries(rc.env.DB);
    if (libraries.length > 0) await rc.env.TASKS.sendBatch(libraries.map((l) => ({ body: { op: "purge-trash", library: l.library } })));
  }
  return purgeTrash(rc, job);
}

async function purgeTrash(rc: RequestContext, job: PurgeTrashMessage): Promise<string> {
  const before = Math.min(job.before ?? Number.POSITIVE_INFINITY, Date.now() - TRASH_RETENTION_MS);
  let { phase, after } = job;
  let groups = 0;
  const purged = { assets: 0, objects: 0, failed: 0 };
  const progress = () =>
    `${groups} groups handed to purge-group, ${purged.assets} assets and ${purged.objects} objects purged` +
    (purged.failed ? `, ${purged.failed} assets left for the next run` : "");
  for (let step = 0; step < job.budget; step++) {
    if (phase === "groups") {
      const tops = await expiredTrashTops(rc.db, { before, after, limit: job.chunkSize });
      if (tops.length > 0) {
        await runBatch(
          rc.db,
          tops.map((g) => detachFromParentStatement(g.id, g.parent_id ?? ROOT_GROUP_ID)),
        );
        await rc.env.TASKS.sendBatch(tops.map((g) => ({ body: { op: "purge-group", groupId: g.id } satisfies TaskMessageInput })));
        groups += tops.length;
        const last = tops[tops.length - 1];
        after = { at: last.deleted_at, id: last.id };
      }
      if (tops.length < job.chunkSize) {
        phase = "assets";
        after = undefined;
      }
      continue;
    }
    const expired = await selectExpiredTrash(rc.db, { before, after, limit: job.chunkSize });
    if (expired.length > 0) {
      const result = await purgeExpiredAssets(
        rc,
        expired.map((a) => a.id),
      );
      purged.assets += result.assets;
      purged.objects += result.objects;
      purged.failed += result.failed;
      const last = expired[expired.length - 1];
      after = { at: last.deleted_at, id: last.id };
    }
    if (expired.length < job.chunkSize) return `purged the trash: ${progress()}`;
  }
  await rc.env.TASKS.send({
    op: "purge-trash",
    chunkSize: job.chunkSize,
    budget: job.budget,
    before,
    phase,
    after,
    library: job.library,
  } satisfies TaskMessageInput);
  return `purging the trash: ${progress()} so far; continued in a new message`;
}

/**
 * `purgeAssets` for a chunk; if that fails, asset by asset, so one asset whose bytes cannot be deleted (its storage
 * unreachable, its credentials unreadable) stays in the trash with its rows, logged, for the next run, and never
 * holds back the rest.
 */
async function purgeExpiredAssets(rc: RequestContext, ids: string[]) {
  try {
    return { ...(await purgeAssets(rc, ids)), failed: 0 };
  } catch {
    const result = { assets: 0, objects: 0, failed: 0 };
    for (const id of ids) {
      try {
        const one = await purgeAssets(rc, [id]);
        result.assets += one.assets;
        result.objects += one.objects;
      } catch (error) {
        result.failed++;
        console.warn(
          JSON.stringify({ level: "warn", requestId: rc.requestId, message: "asset purge failed", asset: id, error: String(error) }),
        );
      }
    }
    return result;
  }
}
