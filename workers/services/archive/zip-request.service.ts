/**
 * `POST /api/zip` and its signed GET: a selection's archive streamed in the answer, or a short-lived signed URL the
 * browser downloads natively (the selection waits in R2 for it), or — above the request's limits — an export task.
 * Rights are checked as the caller when asked and again as the link's user when the link is followed.
 */
import { z } from "zod";
import { ru } from "../../../shared/i18n/ru";
import { findUserById } from "../../db/repositories/user.repository";
import { contentDisposition } from "../../lib/content-disposition";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { signLink, verifyLink } from "../../lib/signed-url";
import type { Actor, RequestContext } from "../access";
import { planZip, ZIP_REQUEST_MAX_BYTES, ZIP_REQUEST_MAX_FILES, type ZipPlan, type ZipSelection } from "./zip-plan.service";
import { planStream, type ZipDownloader } from "./zip-stream.service";

/** How long a signed archive link stays valid: long enough to click, short enough not to be passed around. */
export const ZIP_LINK_SECONDS = 10 * 60;

const selectionKey = (id: string) => `zip-requests/${id}.json`;
const SavedSelection = z.object({ asset_ids: z.array(z.string().max(64)).max(1000), group_ids: z.array(z.string().max(64)).max(1000) });

/** Starts an export task of the selection as `actor` (the tasks domain's, passed in so this domain stays below it). */
export type StartZipTask = (actor: Actor, selection: ZipSelection, name: string) => Promise<{ job_id: string }>;

/** Plans a selection's archive as `actor`: over the catalog (`planZip`), or where its library lives (the route). */
export type ZipPlanner = (actor: Actor, selection: ZipSelection) => Promise<ZipPlan>;

export type ZipAnswer =
  | { kind: "stream"; response: Response }
  | { kind: "url"; url: string; expires_at: string }
  | { kind: "task"; job_id: string };

/** Whether a plan is beyond one request: too many files or bytes. */
export function needsTask(plan: ZipPlan): boolean {
  return plan.overflow || plan.files.length > ZIP_REQUEST_MAX_FILES || plan.bytes > ZIP_REQUEST_MAX_BYTES;
}

function zipResponse(rc: RequestContext, downloader: ZipDownloader, plan: ZipPlan): Response {
  return new Response(planStream(rc, downloader, plan), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": contentDisposition(`${plan.name}.zip`),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** `POST /api/zip`. */
export async function requestZip(
  rc: RequestContext,
  actor: Actor,
  selection: ZipSelection,
  as: "stream" | "url",
  startTask: StartZipTask,
  ip: string | null,
  plan: ZipPlanner = (who, chosen) => planZip(rc, who, chosen, ZIP_REQUEST_MAX_FILES),
): Promise<ZipAnswer> {
  if (selection.assetIds.length + selection.groupIds.length === 0) throw new AppError("BAD_REQUEST", ru.zip.empty);
  const planned = await plan(actor, selection);
  // Beyond one request: the export task plans the selection again as it runs (and refuses more than
  // ZIP_TASK_MAX_FILES with the reason in its log); counting that far here would hold the rows in the request.
  if (needsTask(planned)) return { kind: "task", ...(await startTask(actor, selection, planned.name)) };
  if (as === "stream") return { kind: "stream", response: zipResponse(rc, { userId: actor.id, via: "app", ip }, planned) };
  const id = newId();
  const exp = Math.floor(Date.now() / 1000) + ZIP_LINK_SECONDS;
  await rc.env.MEDIA.put(selectionKey(id), JSON.stringify({ asset_ids: selection.assetIds, group_ids: selection.groupIds }), {
    httpMetadata: { contentType: "application/json" },
  });
  const params = new URLSearchParams(await signLink(rc.config.JWT_SECRET, { purpose: "zip", id, userId: actor.id, exp }));
  return { kind: "url", url: `/api/zip/${id}?${params}`, expires_at: new Date(exp * 1000).toISOString() };
}

/**
 * `GET /api/zip/{id}`: the archive of a selection saved by `POST /api/zip` for a signed link, checked again as the
 * link's user (who must still be enabled); 404 for anything wrong, alike.
 */
export async function openZipLink(
  rc: RequestContext,
  id: string,
  params: { u?: string; exp?: string; sig?: string },
  ip: string | null,
  plan: ZipPlanner = (who, chosen) => planZip(rc, who, chosen, ZIP_REQUEST_MAX_FILES),
): Promise<Response> {
  const gone = () => new AppError("NOT_FOUND", ru.zip.linkInvalid);
  const userId = await verifyLink(rc.config.JWT_SECRET, "zip", id, params);
  const user = userId ? await findUserById(rc.db, userId) : undefined;
  if (!user || !user.enabled) throw gone();
  const saved = await rc.env.MEDIA.get(selectionKey(id));
  const parsed = saved ? SavedSelection.safeParse(await saved.json()) : null;
  if (!parsed?.success) throw gone();
  const actor: Actor = { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
  const selection = { assetIds: parsed.data.asset_ids, groupIds: parsed.data.group_ids };
  const planned = await plan(actor, selection);
  if (needsTask(planned)) throw new AppError("CONFLICT", ru.zip.tooLarge(ZIP_REQUEST_MAX_FILES));
  return zipResponse(rc, { userId: actor.id, via: "app", ip }, planned);
}
