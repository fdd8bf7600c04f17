import { ru } from "../../app/i18n/ru";
import {
  assetFactsRows,
  claimScheduleRun,
  countAutomations,
  deleteAutomation,
  dueSchedules,
  enabledByTriggerTypes,
  existingReferences,
  findAutomation,
  insertAutomation,
  listAutomationRows,
  recordRunStatement,
  updateAutomation,
  type AutomationRow,
} from "../db/repositories/automation.repository";
import { AppError } from "../lib/errors";
import { newId, toHex } from "../lib/ids";
import type { Actor, RequestContext } from "./context";
import { createTask, reportExternalTask } from "./task.service";
import type { AutomationParams } from "../workflows/automation.workflow";
import { causeOf, MAX_CHAIN_DEPTH } from "./udwf/cause";
import { evaluateConditions, type AssetFacts } from "./udwf/conditions";
import { nextCronTime, parseCron } from "./udwf/cron";
import {
  ActionSchema,
  ConditionSchema,
  NO_TRIGGER,
  TriggerSchema,
  WorkflowSetupSchema,
  type Action,
  type Condition,
  type Trigger,
  type WorkflowSetup,
} from "./udwf/setup";
import { webhookAllowsLoopback } from "./udwf/webhook";
import { webhookUrlProblem } from "./udwf/webhook-url";

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

async function requireWorkflow(rc: RequestContext, actor: Actor, id: string): Promise<AutomationRow> {
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
      const problem = webhookUrlProblem(a.url, { allowLoopback });
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

// ---------------------------------------------------------------------------------------------------------------
// Runs

function parseIdList(json: string): Set<string> {
  const list = JSON.parse(json) as unknown;
  return new Set(Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : []);
}

/** Facts of the live assets among `ids`, for judging conditions. */
export async function loadAssetFacts(rc: RequestContext, ids: readonly string[]): Promise<Map<string, AssetFacts>> {
  const rows = await assetFactsRows(rc.db, [...new Set(ids)]);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        name: r.name,
        mime: r.mime,
        size: r.size,
        groups: parseIdList(r.groups),
        groupsWithAncestors: parseIdList(r.ancestors),
        tags: parseIdList(r.tags),
      },
    ]),
  );
}

/** Operation class and template name of the task each run shows as in /jobs. */
export const AUTOMATION_OPERATION = "automation";

export interface StartedRun {
  task_id: string;
  job_num: number;
}

interface RunRequest {
  row: AutomationRow;
  asset: AssetFacts | null;
  /** the group the triggering event happened in (the group a 'move' takes the file out of) */
  groupId: string | null;
  trigger: string;
  depth: number;
  /** set when the schedule check already counted the run */
  counted?: boolean;
}

/**
 * Starts one run: the task row (visible in /jobs at once), then the `AUTOMATIONS` instance with the setup as it
 * is now (later edits do not change a run in flight). The instance id is the task id.
 */
async function startRun(rc: RequestContext, req: RunRequest): Promise<StartedRun> {
  const { row, asset } = req;
  const name = asset ? `${row.name}: ${asset.name}` : row.name;
  const created = await createTask(rc, {
    operationClass: AUTOMATION_OPERATION,
    template: AUTOMATION_OPERATION,
    name,
    ownerId: row.ownerId,
    entities: asset ? [{ id: asset.id, type: "asset" }] : [],
    options: { workflow_id: row.id, depth: req.depth },
    status: "running",
  });
  const task = { id: created.job_id, jobNum: created.job_num };
  const params: AutomationParams = {
    workflowId: row.id,
    taskId: task.id,
    name: row.name,
    ownerId: row.ownerId,
    trigger: req.trigger,
    assetId: asset?.id ?? null,
    groupId: req.groupId,
    depth: req.depth,
    actions: row.actions.map((a) => ActionSchema.parse(a)),
  };
  const lines = [
    { level: "info" as const, message: ru.automations.log.started(row.name, req.trigger) },
    { level: "info" as const, message: asset ? ru.automations.log.subject(asset.name) : ru.automations.log.noSubject },
  ];
  await reportExternalTask(rc, task.id, { log: lines });
  await rc.env.AUTOMATIONS.create({ id: task.id, params });
  if (!req.counted) await recordRunStatement(rc.db, row.id, Date.now());
  return { task_id: task.id, job_num: task.jobNum };
}

/**
 * POST /udwf/execute/{id}: runs an automation now, optionally about one file (its conditions must hold for it:
 * 409 otherwise). Works for any trigger type, enabled or not: a person asked for it.
 */
export async function executeWorkflow(rc: RequestContext, actor: Actor, id: string, input: { asset_id?: string }): Promise<StartedRun> {
  const row = await requireWorkflow(rc, actor, id);
  let asset: AssetFacts | null = null;
  if (input.asset_id) {
    asset = (await loadAssetFacts(rc, [input.asset_id])).get(input.asset_id) ?? null;
    if (!asset) throw new AppError("NOT_FOUND", ru.automations.assetNotFound);
  }
  const conditions = row.conditions.map((c) => ConditionSchema.parse(c));
  if (asset && !evaluateConditions(conditions, asset).ok) throw new AppError("CONFLICT", ru.automations.conditionsNotMet);
  const cause = causeOf(rc);
  return startRun(rc, { row, asset, groupId: null, trigger: ru.automations.triggers.manual, depth: cause ? cause.depth + 1 : 0 });
}

/** A change an automation may react to (handed over by the events capability). */
export interface AutomationEvent {
  type: string;
  entityType: string;
  entityId: string;
  data: Record<string, unknown>;
}

/** Which of our triggers each global event type can fire, and how to read the trigger's filter from its data. */
const EVENT_MAP: Record<string, Trigger["type"]> = {
  "asset.uploaded": "asset.uploaded",
  "tag.attached": "tag.added",
  "field.changed": "field.changed",
};

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function triggerMatches(trigger: Trigger, event: AutomationEvent, asset: AssetFacts): { ok: boolean; groupId: string | null } {
  switch (trigger.type) {
    case "asset.uploaded": {
      const groupId = str(event.data.group_id);
      if (!trigger.group_id) return { ok: true, groupId };
      if (groupId === trigger.group_id) return { ok: true, groupId };
      // Uploaded into a subgroup: the asset's groups with their ancestors say whether it sits under the trigger's group.
      return { ok: trigger.include_subgroups && groupId !== null && asset.groupsWithAncestors.has(trigger.group_id), groupId };
    }
    case "tag.added":
      return { ok: !trigger.tag_id || str(event.data.tag_id) === trigger.tag_id, groupId: null };
    case "field.changed":
      return { ok: !trigger.field_def_id || str(event.data.def_id) === trigger.field_def_id, groupId: null };
    default:
      return { ok: false, groupId: null };
  }
}

/**
 * The event hook: for every asset event that matches an enabled automation's trigger and conditions, starts a run.
 * Events made by a run (its request context carries the cause) start runs one level deeper; past
 * `MAX_CHAIN_DEPTH` nothing starts and the causing run's log says why, so self-triggering chains end.
 * A failure here never undoes the change that made the events: it is logged and the events are left.
 */
export async function onEvents(rc: RequestContext, events: readonly AutomationEvent[]): Promise<StartedRun[]> {
  const relevant = events.filter((e) => e.entityType === "asset" && EVENT_MAP[e.type]);
  if (relevant.length === 0) return [];
  const types = [...new Set(relevant.map((e) => EVENT_MAP[e.type]))];
  const workflows = await enabledByTriggerTypes(rc.db, types);
  if (workflows.length === 0) return [];
  const facts = await loadAssetFacts(
    rc,
    relevant.map((e) => e.entityId),
  );
  const cause = causeOf(rc);
  const depth = cause ? cause.depth + 1 : 0;
  const started: StartedRun[] = [];
  for (const event of relevant) {
    const asset = facts.get(event.entityId);
    if (!asset) continue;
    for (const row of workflows) {
      const trigger = TriggerSchema.parse(row.trigger);
      if (trigger.type !== EVENT_MAP[event.type]) continue;
      const match = triggerMatches(trigger, event, asset);
      if (!match.ok) continue;
      if (
        !evaluateConditions(
          row.conditions.map((c) => ConditionSchema.parse(c)),
          asset,
        ).ok
      )
        continue;
      if (depth > MAX_CHAIN_DEPTH) {
        if (cause)
          await reportExternalTask(rc, cause.taskId, {
            log: [{ level: "warn", message: ru.automations.log.loopStopped(row.name, depth) }],
          });
        continue;
      }
      started.push(await startRun(rc, { row, asset, groupId: match.groupId, trigger: ru.automations.triggers[trigger.type], depth }));
    }
  }
  return started;
}

/**
 * The schedule check, from the cron trigger: starts every enabled schedule automation that is due and moves its
 * next firing time past `now` (a tick that came late fires once, not once per missed time).
 */
export async function runDueSchedules(rc: RequestContext, now = Date.now()): Promise<StartedRun[]> {
  const due = await dueSchedules(rc.db, now, 100);
  const started: StartedRun[] = [];
  for (const row of due) {
    const trigger = TriggerSchema.parse(row.trigger);
    if (trigger.type !== "schedule" || row.nextRunAt == null) continue;
    const next = nextCronTime(parseCron(trigger.cron), now);
    if (!(await claimScheduleRun(rc.db, row.id, row.nextRunAt, next, now))) continue;
    started.push(
      await startRun(rc, {
        row,
        asset: null,
        groupId: null,
        trigger: `${ru.automations.triggers.schedule}: ${trigger.cron}`,
        depth: 0,
        counted: true,
      }),
    );
  }
  return started;
}
