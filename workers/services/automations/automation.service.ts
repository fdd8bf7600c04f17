import { ru } from "../../../shared/i18n/ru";
import {
  countAutomations,
  deleteAutomation,
  existingReferences,
  findAutomation,
  insertAutomation,
  listAutomationRows,
  updateAutomation,
  type AutomationRow,
} from "../../db/repositories/automation.repository";
import { AppError } from "../../lib/errors";
import { newId, toHex } from "../../lib/ids";
import type { Actor, RequestContext } from "../access";
import { nextCronTime, parseCron } from "./udwf/cron";
import {
  ActionSchema,
  ConditionSchema,
  NO_TRIGGER,
  TriggerSchema,
  type Action,
  type Condition,
  type Trigger,
  type WorkflowSetup,
} from "./udwf/setup";
import { webhookAllowsLoopback } from "./udwf/webhook";
import { outboundUrlProblem } from "../../lib/outbound-url";

/** A workflow as the API shows it (SPEC §7 udwf). */
export interface WorkflowInfo {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  /** null for a draft created without one (set it with workflow-setup) */
  trigger: Trigger | null;
  conditions: Condition[];
  actions: Action[];
  /** key of the HMAC-SHA256 signature on webhook calls: the receiver checks `X-Mam-Signature` with it */
  webhook_secret: string;
  next_run_at: string | null;
  last_run_at: string | null;
  runs: number;
  owner: string;
  ctime: string;
  mtime: string;
}

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());

/** Rows were validated on the way in; parsing again on the way out keeps the types honest. */
function toInfo(row: AutomationRow): WorkflowInfo {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    trigger: row.triggerType === NO_TRIGGER ? null : TriggerSchema.parse(row.trigger),
    conditions: row.conditions.map((c) => ConditionSchema.parse(c)),
    actions: row.actions.map((a) => ActionSchema.parse(a)),
    webhook_secret: row.secret,
    next_run_at: iso(row.nextRunAt),
    last_run_at: iso(row.lastRunAt),
    runs: row.runs,
    owner: row.ownerId,
    ctime: iso(row.ctime)!,
    mtime: iso(row.mtime)!,
  };
}

/** Automations act with their owner's rights on the whole library, so only administrators manage them. */
function requireAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.automations.adminOnly);
}

export async function requireWorkflow(rc: RequestContext, actor: Actor, id: string): Promise<AutomationRow> {
  requireAdmin(actor);
  const row = await findAutomation(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.automations.notFound);
  return row;
}

function badField(field: string, message: string): AppError {
  return new AppError("BAD_REQUEST", ru.errors.invalidField(field, message));
}

/**
 * The checks of a setup that need the database or the configuration: every tag, group, field and task template it
 * names exists (400 naming the field), export has a group, and webhook addresses pass the loopback policy.
 */
async function checkSetup(rc: RequestContext, setup: WorkflowSetup): Promise<void> {
  const refs: { kind: "tag" | "group" | "field" | "template"; id: string; field: string; operation?: string }[] = [];
  const t = setup.trigger;
  if (t.type === "asset.uploaded" && t.group_id) refs.push({ kind: "group", id: t.group_id, field: "trigger.group_id" });
  if (t.type === "tag.added" && t.tag_id) refs.push({ kind: "tag", id: t.tag_id, field: "trigger.tag_id" });
  if (t.type === "field.changed" && t.field_def_id) refs.push({ kind: "field", id: t.field_def_id, field: "trigger.field_def_id" });
  for (const [i, c] of setup.conditions.entries()) {
    if (c.kind === "group") refs.push({ kind: "group", id: c.group_id, field: `conditions.${i}.group_id` });
    if (c.kind === "tag") refs.push({ kind: "tag", id: c.tag_id, field: `conditions.${i}.tag_id` });
  }
  const allowLoopback = webhookAllowsLoopback(rc.env);
  for (const [i, a] of setup.actions.entries()) {
    const at = `actions.${i}`;
    if (a.type === "add-tag" || a.type === "remove-tag") refs.push({ kind: "tag", id: a.tag_id, field: `${at}.tag_id` });
    if (a.type === "move-to-group" || a.type === "copy-to-group") refs.push({ kind: "group", id: a.group_id, field: `${at}.group_id` });
    if (a.type === "set-field") refs.push({ kind: "field", id: a.field_def_id, field: `${at}.field_def_id` });
    if (a.type === "run-task") {
      if (a.template_id) refs.push({ kind: "template", id: a.template_id, field: `${at}.template_id`, operation: a.operation });
      if (a.group_id) refs.push({ kind: "group", id: a.group_id, field: `${at}.group_id` });
      if (a.operation === "export" && !a.group_id) throw badField(`${at}.group_id`, ru.automations.exportNeedsGroup);
    }
    if (a.type === "webhook") {
      const problem = outboundUrlProblem(a.url, { allowLoopback });
      if (problem) throw badField(`${at}.url`, problem);
    }
  }
  if (refs.length === 0) return;
  const ids = (kind: string) => refs.filter((r) => r.kind === kind).map((r) => r.id);
  const found = await existingReferences(rc.db, {
    tags: ids("tag"),
    groups: ids("group"),
    fields: ids("field"),
    templates: ids("template"),
  });
  const known = new Map(found.map((f) => [`${f.kind}:${f.id}`, f.extra]));
  const messages = {
    tag: ru.automations.tagNotFound,
    group: ru.automations.groupNotFound,
    field: ru.automations.fieldNotFound,
    template: ru.automations.templateNotFound,
  };
  for (const ref of refs) {
    const key = `${ref.kind}:${ref.id}`;
    if (!known.has(key)) throw badField(ref.field, messages[ref.kind]);
    if (ref.kind === "template" && known.get(key) !== ref.operation)
      throw badField(ref.field, ru.automations.templateWrongClass(ref.operation!));
  }
}

function nextRunFor(trigger: Trigger | null, enabled: boolean, now: number): number | null {
  if (trigger?.type !== "schedule" || !enabled) return null;
  return nextCronTime(parseCron(trigger.cron), now);
}

function randomSecret(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** GET /udwf/workflows: every automation, newest first. */
export async function listWorkflows(
  rc: RequestContext,
  actor: Actor,
  paging: { skip: number; take: number },
): Promise<{ total: number; items: WorkflowInfo[] }> {
  requireAdmin(actor);
  const [rows, total] = await Promise.all([listAutomationRows(rc.db, paging), countAutomations(rc.db)]);
  return { total, items: rows.map(toInfo) };
}

export async function getWorkflow(rc: RequestContext, actor: Actor, id: string): Promise<WorkflowInfo> {
  return toInfo(await requireWorkflow(rc, actor, id));
}

export interface WorkflowCreate {
  name: string;
  description: string;
  enabled: boolean;
  /** absent for a draft (SPEC's workflow-setup sets it later) */
  trigger?: Trigger;
  conditions: Condition[];
  /** empty for a draft */
  actions: Action[];
}

/**
 * An enabled automation needs a trigger and at least one action: enabling a draft without them answers 400 naming
 * the field, in the same `Поле «…»: …` form as the setup's own validation.
 */
function requireComplete(trigger: Trigger | null, actions: readonly unknown[]): void {
  if (!trigger) throw badField("trigger", ru.errors.requiredField);
  if (actions.length === 0) throw badField("actions", ru.apiContract.actionsRequired);
}

/**
 * POST /udwf/workflow: a new automation owned by the caller, with a fresh webhook signing key. Without a trigger or
 * actions it is a draft: stored disabled (enabling it here answers 400), runnable by execute.
 */
export async function createWorkflow(rc: RequestContext, actor: Actor, input: WorkflowCreate): Promise<WorkflowInfo> {
  requireAdmin(actor);
  const trigger = input.trigger ?? null;
  if (input.enabled) requireComplete(trigger, input.actions);
  await checkSetup(rc, { trigger: trigger ?? { type: "manual" }, conditions: input.conditions, actions: input.actions });
  const now = Date.now();
  const id = newId(now);
  await insertAutomation(rc.db, {
    id,
    name: input.name,
    description: input.description,
    enabled: input.enabled,
    triggerType: trigger?.type ?? NO_TRIGGER,
    trigger: trigger ?? {},
    conditions: input.conditions,
    actions: input.actions,
    secret: randomSecret(),
    nextRunAt: nextRunFor(trigger, input.enabled, now),
    ownerId: actor.id,
    ctime: now,
    mtime: now,
  });
  return getWorkflow(rc, actor, id);
}

/** PATCH /udwf/workflow/{id}: name, description, enabled; `rotate_secret` issues a new webhook signing key. */
export async function patchWorkflow(
  rc: RequestContext,
  actor: Actor,
  id: string,
  patch: { name?: string; description?: string; enabled?: boolean; rotate_secret?: boolean },
): Promise<WorkflowInfo> {
  const row = await requireWorkflow(rc, actor, id);
  const now = Date.now();
  const enabled = patch.enabled ?? row.enabled;
  const trigger = row.triggerType === NO_TRIGGER ? null : TriggerSchema.parse(row.trigger);
  if (enabled && !row.enabled) requireComplete(trigger, row.actions);
  const [updated] = await updateAutomation(rc.db, id, {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.rotate_secret ? { secret: randomSecret() } : {}),
    enabled,
    nextRunAt: enabled === row.enabled ? row.nextRunAt : nextRunFor(trigger, enabled, now),
    mtime: now,
  });
  if (!updated) throw new AppError("NOT_FOUND", ru.automations.notFound);
  return toInfo(updated);
}

/** PATCH /udwf/workflow-setup/{id}: replaces trigger, conditions and actions (validated as on creation). */
export async function patchWorkflowSetup(rc: RequestContext, actor: Actor, id: string, setup: WorkflowSetup): Promise<WorkflowInfo> {
  const row = await requireWorkflow(rc, actor, id);
  await checkSetup(rc, setup);
  const now = Date.now();
  const [updated] = await updateAutomation(rc.db, id, {
    triggerType: setup.trigger.type,
    trigger: setup.trigger,
    conditions: setup.conditions,
    actions: setup.actions,
    nextRunAt: nextRunFor(setup.trigger, row.enabled, now),
    mtime: now,
  });
  if (!updated) throw new AppError("NOT_FOUND", ru.automations.notFound);
  return toInfo(updated);
}

/** POST /udwf/workflow-enable-disable/{id}. */
export function setWorkflowEnabled(rc: RequestContext, actor: Actor, id: string, enabled: boolean): Promise<WorkflowInfo> {
  return patchWorkflow(rc, actor, id, { enabled });
}

/** DELETE /udwf/workflow/{id}: runs already started finish with the setup they started with. */
export async function deleteWorkflow(rc: RequestContext, actor: Actor, id: string): Promise<{ id: string }> {
  requireAdmin(actor);
  const [deleted] = await deleteAutomation(rc.db, id);
  if (!deleted) throw new AppError("NOT_FOUND", ru.automations.notFound);
  return { id };
}
