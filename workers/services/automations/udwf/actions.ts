import { eq, sql } from "drizzle-orm";
import { ru } from "../../../../shared/i18n/ru";
import { findTagsByIds } from "../../../db/repositories/tag.repository";
import { findUserById } from "../../../db/repositories/user.repository";
import { automations, fieldTemplates, groups } from "../../../db/schema/index";
import { copyAsset, inLibraryOf, insertMembers, moveMembers } from "../../library";
import type { Actor, RequestContext } from "../../access";
import { bulkSetField, attachTags, detachTags } from "../../metadata";
import { enqueueTask } from "../../tasks";
import type { Action } from "./setup";
import { sendWebhook } from "./webhook";

/** What one action needs to know about the run it belongs to. */
export interface RunContext {
  workflowId: string;
  workflowName: string;
  taskId: string;
  trigger: string;
  assetId: string | null;
  groupId: string | null;
  step: number;
}

/** A run stops (no retry) when its owner can no longer act: the owner was deleted, disabled or demoted. */
export class RunStopped extends Error {}

/** The owner of a workflow as an actor: runs act with their rights, checked by the same services as any request. */
export async function ownerActor(rc: RequestContext, ownerId: string): Promise<Actor> {
  const user = await findUserById(rc.db, ownerId);
  if (!user || !user.enabled) throw new RunStopped(ru.automations.log.ownerGone);
  // Only administrators own automations: a run in flight stops at its next step once its owner is demoted.
  if (!user.isAdmin) throw new RunStopped(ru.automations.log.ownerNotAdmin);
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

async function tagName(rc: RequestContext, id: string): Promise<string> {
  const [tag] = await findTagsByIds(rc.db, [id]);
  return tag?.name ?? id;
}

async function groupName(rc: RequestContext, id: string): Promise<string> {
  const row = await rc.db.select({ name: groups.name }).from(groups).where(eq(groups.id, id)).get();
  return row?.name ?? id;
}

/** Groups listing the asset now (live memberships). */
async function groupsOf(rc: RequestContext, assetId: string): Promise<string[]> {
  const rows = await rc.db.all<{ group_id: string }>(
    sql`select group_id from group_members where el_id = ${assetId} and trashed_at is null order by ctime`,
  );
  return rows.map((r) => r.group_id);
}

/**
 * Performs one action and answers a line for the run's log. Throws to have the step retried; the services check
 * the owner's rights exactly as for a request, so an automation can do nothing its owner could not.
 */
export async function performAction(rc: RequestContext, actor: Actor, run: RunContext, action: Action): Promise<string> {
  const asset = run.assetId;
  // A file's tags, fields and listings are changed where its library lives (decision 043), with what they name.
  const o =
    action.type === "add-tag" || action.type === "remove-tag"
      ? { named: { tags: [action.tag_id] } }
      : action.type === "set-field"
      ? { named: { templates: [action.field_def_id] } }
      : action.type === "move-to-group" || action.type === "copy-to-group"
      ? { sameLibrary: [action.group_id] }
      : null;
  if (asset && o) return inLibraryOf(rc, asset, (rc) => performHere(rc, actor, run, action), { actor, ...o });
  return performHere(rc, actor, run, action);
}

async function performHere(rc: RequestContext, actor: Actor, run: RunContext, action: Action): Promise<string> {
  const log = ru.automations.log;
  const asset = run.assetId;
  switch (action.type) {
    case "add-tag":
      await attachTags(rc, actor, { tag_ids: [action.tag_id], entities: [{ id: asset!, type: "asset" }] });
      return log.tagAdded(await tagName(rc, action.tag_id));
    case "remove-tag":
      await detachTags(rc, actor, { tag_ids: [action.tag_id], entities: [{ id: asset!, type: "asset" }] });
      return log.tagRemoved(await tagName(rc, action.tag_id));
    case "set-field": {
      await bulkSetField(rc, actor, { def_id: action.field_def_id, entity_ids: [asset!], data: action.value, mode: "replace" });
      const field = await rc.db
        .select({ name: fieldTemplates.name })
        .from(fieldTemplates)
        .where(eq(fieldTemplates.id, action.field_def_id))
        .get();
      return log.fieldSet(field?.name ?? action.field_def_id);
    }
    case "move-to-group": {
      const name = await groupName(rc, action.group_id);
      const current = await groupsOf(rc, asset!);
      // A retried step may find the move already done.
      if (current.includes(action.group_id)) return log.alreadyInGroup(name);
      const from = run.groupId && current.includes(run.groupId) ? run.groupId : current[0];
      if (from) await moveMembers(rc, actor, from, action.group_id, [asset!]);
      else await insertMembers(rc, actor, action.group_id, [{ el_id: asset!, el_type: "asset" }]);
      return log.moved(name);
    }
    case "copy-to-group":
      await copyAsset(rc, actor, asset!, action.group_id);
      return log.copied(await groupName(rc, action.group_id));
    case "run-task": {
      const groupId = action.group_id ?? run.groupId;
      if (action.operation === "export" && !groupId) throw new RunStopped(ru.automations.exportNeedsGroup);
      const target = action.operation === "export" ? { id: groupId!, type: "group" as const } : { id: asset!, type: "asset" as const };
      const created = await enqueueTask(rc, actor, action.template_id ?? action.operation, { entities: [target] });
      return log.taskQueued(ru.automations.operations[action.operation], created.job_num);
    }
    case "webhook": {
      const row = await rc.db.select({ secret: automations.secret }).from(automations).where(eq(automations.id, run.workflowId)).get();
      if (!row) throw new RunStopped(log.workflowGone);
      const status = await sendWebhook(rc.env, action.url, row.secret, {
        workflow_id: run.workflowId,
        workflow_name: run.workflowName,
        task_id: run.taskId,
        trigger: run.trigger,
        asset_id: asset,
        group_id: run.groupId,
        step: run.step,
        sent_at: new Date().toISOString(),
      });
      return log.webhookSent(status);
    }
    case "wait":
      return log.waiting(action.seconds);
  }
}
