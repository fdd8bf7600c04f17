import { eq, sql } from "drizzle-orm";
import type { Database } from "../../../db/client";
import { variants } from "../../../db/schema/index";

/**
 * How a processing stage of a variant ended (issue 25, «honest states»): kept in `tech_fields.processing.<stage>`
 * and shown by the viewer. A stage with no entry has not ended yet (its task is queued or running); every task
 * that runs a stage writes one of these three when it ends with the file, so nothing stays «processing».
 */
export type StageName = "tech" | "text" | "preview";
export interface StageState {
  state: "done" | "not_applicable" | "failed";
  /** why (Russian), for not_applicable and failed */
  reason?: string;
}

/**
 * The statement merging `fields` (and the stages) into the variant's tech_fields with SQLite's json_patch, so the
 * preview and tech-fields tasks, which may run at the same moment, never overwrite each other's stage.
 */
export function techFieldsPatch(
  db: Database,
  variantId: string,
  fields: Record<string, unknown>,
  stages: Partial<Record<StageName, StageState>>,
  props?: Record<string, unknown>,
) {
  // json_patch deletes keys patched with null: a stage that is done now drops the reason of an earlier failure.
  const processing = Object.fromEntries(Object.entries(stages).map(([k, s]) => [k, { state: s.state, reason: s.reason ?? null }]));
  const patch = JSON.stringify({ ...fields, processing });
  return db
    .update(variants)
    .set({ techFields: sql`json_patch(coalesce(${variants.techFields}, '{}'), ${patch})`, ...(props ? { techProps: props } : {}) })
    .where(eq(variants.id, variantId));
}
