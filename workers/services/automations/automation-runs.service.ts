/** Running automations: planning runs for events and schedules, starting them by hand, and handing them to the Workflow. */
import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import {
  assetFactsRows,
  claimScheduleRun,
  disableUnownedAutomationsStatements,
  dueSchedules,
  enabledByTriggerTypes,
  recordRunStatement,
  type AutomationRow,
} from "../../db/repositories/automation.repository";
import { runBatch } from "../../db/repositories/asset.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Actor, RequestContext } from "../access";
import { countRunStatement, insertDeliveryStatement, notDelivered } from "../../db/repositories/event-outbox.repository";
import { insertTaskStatement } from "../../db/repositories/task.repository";
import { createTask, DEFAULT_PRIORITY, reportExternalTask, taskStub } from "../tasks";
import { canTrigger, EVENT_TRIGGERS, type TriggeringEventType, causeOf, MAX_CHAIN_DEPTH } from "../events";
import type { AutomationParams } from "../../workflows/automation.workflow";
import { evaluateConditions, type AssetFacts } from "./udwf/conditions";
import { nextCronTime, parseCron } from "./udwf/cron";
import { ActionSchema, ConditionSchema, TriggerSchema, type Trigger } from "./udwf/setup";
import { requireWorkflow } from "./automation.service";

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

/** A change an automation may react to: an undelivered outbox event, as the dispatcher reads it (decision 024). */
export interface AutomationEvent {
  eventId: string;
  type: string;
  entityType: string;
  entityId: string;
  data: Record<string, unknown>;
  /** the run whose action made the change, if one did: runs it starts are one level deeper */
  cause: { taskId: string; depth: number } | null;
}

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
    case "review.decided":
      return { ok: !trigger.status || str(event.data.status) === trigger.status, groupId: null };
    default:
      return { ok: false, groupId: null };
  }
}

/**
 * What delivering an event to one workflow does once its record is written (stored with the record, so a
 * dispatcher that died in between finishes it exactly as planned): start the run's Workflow instance, or — past the
 * chain-depth limit — say in the causing run's log that the chain was stopped.
 */
export type Handover =
  | { kind: "run"; params: AutomationParams; log: { level: "info"; message: string }[] }
  | { kind: "stopped"; causeTaskId: string; message: string };

/** One (event, workflow) pair the dispatcher is to deliver. */
export interface PlannedDelivery {
  eventId: string;
  workflowId: string;
  /** the run's task id (also its instance id); null for a stopped chain */
  taskId: string | null;
  handover: Handover;
  /** inserts the run's task and counts the run, both only if the pair was never delivered (see `deliveryStatements`) */
  task: { row: AutomationRow; name: string; assetId: string } | null;
}

/**
 * For every event, the enabled automations whose trigger and conditions it meets, judged on the asset as it is now.
 * A run caused by a run is one level deeper; past `MAX_CHAIN_DEPTH` the pair is still delivered, as a logged stop,
 * so self-triggering chains end.
 */
export async function planEventRuns(rc: RequestContext, events: readonly AutomationEvent[]): Promise<PlannedDelivery[]> {
  const relevant = events.filter((e) => canTrigger(e.entityType, e.type));
  if (relevant.length === 0) return [];
  const types = [...new Set(relevant.map((e) => EVENT_TRIGGERS[e.type as TriggeringEventType]))];
  const workflows = await enabledByTriggerTypes(rc.db, types);
  if (workflows.length === 0) return [];
  const facts = await loadAssetFacts(
    rc,
    relevant.map((e) => e.entityId),
  );
  const planned: PlannedDelivery[] = [];
  for (const event of relevant) {
    const asset = facts.get(event.entityId);
    if (!asset) continue;
    const depth = event.cause ? event.cause.depth + 1 : 0;
    for (const row of workflows) {
      const trigger = TriggerSchema.parse(row.trigger);
      if (trigger.type !== EVENT_TRIGGERS[event.type as TriggeringEventType]) continue;
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
        if (event.cause) {
          planned.push({
            eventId: event.eventId,
            workflowId: row.id,
            taskId: null,
            handover: { kind: "stopped", causeTaskId: event.cause.taskId, message: ru.automations.log.loopStopped(row.name, depth) },
            task: null,
          });
        }
        continue;
      }
      const taskId = newId();
      const triggerName = ru.automations.triggers[trigger.type];
      planned.push({
        eventId: event.eventId,
        workflowId: row.id,
        taskId,
        handover: {
          kind: "run",
          params: {
            workflowId: row.id,
            taskId,
            name: row.name,
            ownerId: row.ownerId,
            trigger: triggerName,
            assetId: asset.id,
            groupId: match.groupId,
            depth,
            actions: row.actions.map((a) => ActionSchema.parse(a)),
          },
          log: [
            { level: "info", message: ru.automations.log.started(row.name, triggerName) },
            { level: "info", message: ru.automations.log.subject(asset.name) },
          ],
        },
        task: { row, name: `${row.name}: ${asset.name}`, assetId: asset.id },
      });
    }
  }
  return planned;
}

/**
 * The statements that deliver one pair, for one batch: the run's task and its count on the automation, each only if
 * no delivery of the pair exists yet, then the delivery row itself (`on conflict do nothing`). Two dispatchers
 * delivering the same pair at once, or one re-running after a crash, therefore make one task and one count.
 */
export function deliveryStatements(d: PlannedDelivery, now: number): SQL[] {
  const statements: SQL[] = [];
  if (d.task && d.taskId) {
    const { row } = d.task;
    const params = d.handover.kind === "run" ? d.handover.params : null;
    statements.push(
      insertTaskStatement(
        {
          id: d.taskId,
          templateId: null,
          template: AUTOMATION_OPERATION,
          operationClass: AUTOMATION_OPERATION,
          name: d.task.name.slice(0, 500),
          ownerId: row.ownerId,
          affected: [{ id: d.task.assetId, type: "asset" }],
          srcEntity: d.task.assetId,
          dstEntity: null,
          options: { workflow_id: row.id, depth: params?.depth ?? 0 },
          status: "running",
          priority: DEFAULT_PRIORITY,
          scheduleTime: now,
          now,
        },
        notDelivered(d.eventId, d.workflowId),
      ),
      countRunStatement(row.id, d.eventId, now),
    );
  }
  statements.push(insertDeliveryStatement({ eventId: d.eventId, workflowId: d.workflowId, taskId: d.taskId, handover: d.handover, now }));
  return statements;
}

/**
 * The hand-over of a recorded delivery: the run's log lines and its `AUTOMATIONS` instance (whose id is the task
 * id, so a second create after a crash finds the instance there and changes nothing), or the stop line in the
 * causing run's log. `resumed`: the delivery was recorded by an earlier dispatch that died. `afterStep` is the
 * dispatcher's step hook (tests inject crashes through it).
 */
export async function handOverDelivery(
  rc: RequestContext,
  taskId: string | null,
  handover: Handover,
  resumed: boolean,
  afterStep: (step: string) => void | Promise<void>,
): Promise<void> {
  if (handover.kind === "stopped") {
    await reportExternalTask(rc, handover.causeTaskId, { log: [{ level: "warn", message: handover.message }] });
    await afterStep("log stopped chain");
    return;
  }
  if (!taskId) return;
  await taskStub(rc.env, taskId).appendLogs([{ level: "info", message: ru.tasks.log.queued(handover.params.name) }, ...handover.log]);
  await afterStep("write run log");
  // A delivery an earlier, interrupted dispatch recorded may have its instance already: look before creating it.
  const existing = resumed ? await rc.env.AUTOMATIONS.get(taskId).catch(() => null) : null;
  if (!existing) {
    try {
      await rc.env.AUTOMATIONS.create({ id: taskId, params: handover.params });
    } catch (error) {
      // Another dispatcher created it between the look and the create: the instance is there, nothing is repeated.
      if (!(await rc.env.AUTOMATIONS.get(taskId).catch(() => null))) throw error;
    }
  }
  await afterStep("create workflow instance");
}

/**
 * The schedule check, from the cron trigger: starts every enabled schedule automation that is due and moves its
 * next firing time past `now` (a tick that came late fires once, not once per missed time).
 */
export async function runDueSchedules(rc: RequestContext, now = Date.now()): Promise<StartedRun[]> {
  // The sweep: automations whose owner can no longer own them (however that came about) are switched off, audited.
  await runBatch(rc.db, disableUnownedAutomationsStatements({ ownerId: null, actorId: null, reason: "owner_not_admin", now }));
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
