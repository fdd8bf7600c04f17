import { z } from "zod";
import { cronProblem } from "./cron";
import { visibleName } from "../../../lib/visible-name";
import { outboundUrlProblem, PUBLIC_HTTP_URL_PATTERN } from "../../../lib/outbound-url";
import { NON_BLANK_PATTERN, TRIMMED_TEXT_PATTERN } from "../../../api/schemas";
import { REVIEW_STATUSES } from "../../../../shared/review-status";

/**
 * The setup of an automation (trigger, conditions, actions) as one zod contract, shared by the API (400 naming the
 * field) and the editor in the browser. Checks that need the database (does the tag exist?) are in
 * automation.service.ts; the webhook address is checked again when it is called.
 */

const Id = z.string().regex(/^[0-9a-f]{32}$/, "ожидается идентификатор из 32 шестнадцатеричных символов");

/** Event triggers: what happened to an asset. `group_id` narrows to one group (and, optionally, its subgroups). */
export const EVENT_TRIGGERS = ["asset.uploaded", "tag.added", "field.changed", "review.decided"] as const;
export type EventTriggerType = (typeof EVENT_TRIGGERS)[number];

export const AssetUploadedTriggerSchema = z.object({
  type: z.literal("asset.uploaded"),
  group_id: Id.optional(),
  include_subgroups: z.boolean().default(false),
});
export const TagAddedTriggerSchema = z.object({ type: z.literal("tag.added"), tag_id: Id.optional() });
export const FieldChangedTriggerSchema = z.object({ type: z.literal("field.changed"), field_def_id: Id.optional() });
/** A version's review status changed; `status` narrows to one new status (any when absent). */
export const ReviewDecidedTriggerSchema = z.object({ type: z.literal("review.decided"), status: z.enum(REVIEW_STATUSES).optional() });
/**
 * What the document promises `cronProblem` accepts: a macro, or five fields, each `*` (with an optional step) or a list of values
 * within bounds (month and weekday names in capitals). Days of the month stop at 28, so every expression this
 * matches fires; the product also takes ranges, other steps and days 29–31.
 */
const CRON_PATTERN = (() => {
  const field = (value: string) => `(?:\\*(?:/[1-9][0-9]?)?|${value}(?:,${value})*)`;
  const minute = "[1-5]?[0-9]";
  const hour = "(?:1?[0-9]|2[0-3])";
  const day = "(?:[1-9]|1[0-9]|2[0-8])";
  const month = "(?:[1-9]|1[0-2]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)";
  const weekday = "(?:[0-7]|SUN|MON|TUE|WED|THU|FRI|SAT)";
  const macro = "@(?:hourly|daily|midnight|weekly|monthly|yearly|annually)";
  return `^(?:${macro}|${[minute, hour, day, month, weekday].map(field).join(" ")})$`;
})();
export const ScheduleTriggerSchema = z.object({
  type: z.literal("schedule"),
  cron: z
    .string()
    .max(200)
    .superRefine((value, ctx) => {
      const problem = cronProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: `неверное выражение cron: ${problem}` });
    })
    .meta({ pattern: CRON_PATTERN }),
});
export const ManualTriggerSchema = z.object({ type: z.literal("manual") });

export const TriggerSchema = z.discriminatedUnion("type", [
  AssetUploadedTriggerSchema,
  TagAddedTriggerSchema,
  FieldChangedTriggerSchema,
  ReviewDecidedTriggerSchema,
  ScheduleTriggerSchema,
  ManualTriggerSchema,
]);
export type Trigger = z.infer<typeof TriggerSchema>;
export type TriggerType = Trigger["type"];

/** Conditions on the asset a run is about; all must hold. */
export const ConditionSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("mimetype"),
    op: z.enum(["is", "starts-with", "is-not"]),
    value: z.string().trim().min(1).max(255).meta({ pattern: NON_BLANK_PATTERN }),
  }),
  z.object({
    kind: z.literal("size"),
    op: z.enum(["gt", "gte", "lt", "lte"]),
    value: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  }),
  z.object({ kind: z.literal("group"), op: z.enum(["in", "not-in"]), group_id: Id, include_subgroups: z.boolean().default(true) }),
  z.object({ kind: z.literal("tag"), op: z.enum(["has", "has-not"]), tag_id: Id }),
]);
export type Condition = z.infer<typeof ConditionSchema>;
export type ConditionKind = Condition["kind"];

/** Operation classes an automation may start as a task (the tasks capability runs them). */
export const RUNNABLE_OPERATIONS = ["preview", "tech-fields", "export"] as const;

const WebhookUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = outboundUrlProblem(value, { allowLoopback: true });
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  // published for the document: a subset of what the check above takes
  .meta({ pattern: PUBLIC_HTTP_URL_PATTERN });

export const ActionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("add-tag"), tag_id: Id }),
  z.object({ type: z.literal("remove-tag"), tag_id: Id }),
  z.object({ type: z.literal("set-field"), field_def_id: Id, value: z.union([z.string().max(10_000), z.number(), z.boolean()]) }),
  z.object({ type: z.literal("move-to-group"), group_id: Id }),
  z.object({ type: z.literal("copy-to-group"), group_id: Id }),
  z.object({ type: z.literal("run-task"), operation: z.enum(RUNNABLE_OPERATIONS), template_id: Id.optional(), group_id: Id.optional() }),
  z.object({ type: z.literal("webhook"), url: WebhookUrlSchema }),
  z.object({
    type: z.literal("wait"),
    seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400),
  }),
]);
export type Action = z.infer<typeof ActionSchema>;
export type ActionType = Action["type"];

/** Actions that work on the run's asset (skipped, with a log line, in a run that has none). */
export const ASSET_ACTIONS: ReadonlySet<ActionType> = new Set(["add-tag", "remove-tag", "set-field", "move-to-group", "copy-to-group"]);

export const MAX_ACTIONS = 20;
export const MAX_CONDITIONS = 20;

export const WorkflowSetupSchema = z.object({
  trigger: TriggerSchema,
  conditions: z.array(ConditionSchema).max(MAX_CONDITIONS).default([]),
  actions: z.array(ActionSchema).min(1, "нужно хотя бы одно действие").max(MAX_ACTIONS),
});
export type WorkflowSetup = z.infer<typeof WorkflowSetupSchema>;
export type WorkflowSetupInput = z.input<typeof WorkflowSetupSchema>;

// Control characters never belong in a name.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

export const WorkflowNameSchema = z
  .string()
  .trim()
  .min(1, "название не может быть пустым")
  .max(200)
  .refine((v) => !CONTROL_CHARS.test(v), "название не может содержать управляющие символы")
  .check(visibleName)
  .meta({ pattern: TRIMMED_TEXT_PATTERN });

export const WorkflowMetaSchema = z.object({
  name: WorkflowNameSchema,
  description: z.string().max(2000).default(""),
});

export const WorkflowCreateSchema = WorkflowMetaSchema.extend({
  ...WorkflowSetupSchema.shape,
  enabled: z.boolean().default(false),
});
export type WorkflowCreateInput = z.input<typeof WorkflowCreateSchema>;

/**
 * The API's creation body (POST /udwf/workflow). SPEC §7 sets the trigger, conditions and actions with a separate
 * workflow-setup call, so a client may create a named draft first: without a trigger or actions it is stored
 * disabled, runnable by execute, and enabling it answers 400 naming the missing field. The editor in the browser
 * keeps using the complete `WorkflowCreateSchema`.
 */
export const WorkflowDraftCreateSchema = WorkflowMetaSchema.extend({
  trigger: TriggerSchema.optional(),
  conditions: z.array(ConditionSchema).max(MAX_CONDITIONS).default([]),
  actions: z.array(ActionSchema).max(MAX_ACTIONS).default([]),
  enabled: z.boolean().default(false),
});
export type WorkflowDraftCreate = z.infer<typeof WorkflowDraftCreateSchema>;

/** `trigger_type` of a draft created without a trigger: no event or schedule selects it. */
export const NO_TRIGGER = "none";
