import { and, asc, desc, eq, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { automations, type AutomationRow } from "../schema/index";
import { inIds } from "./tag.repository";

export type { AutomationRow };

/** Every automation, newest first, one page. */
export function listAutomationRows(db: Database, opts: { skip: number; take: number }) {
  return db.select().from(automations).orderBy(desc(automations.ctime), desc(automations.id)).limit(opts.take).offset(opts.skip);
}

export async function countAutomations(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(automations);
  return row?.n ?? 0;
}

export async function findAutomation(db: Database, id: string): Promise<AutomationRow | undefined> {
  const [row] = await db.select().from(automations).where(eq(automations.id, id)).limit(1);
  return row;
}

export function insertAutomation(db: Database, row: typeof automations.$inferInsert) {
  return db.insert(automations).values(row);
}

export function updateAutomation(db: Database, id: string, change: Partial<typeof automations.$inferInsert>) {
  return db.update(automations).set(change).where(eq(automations.id, id)).returning();
}

export function deleteAutomation(db: Database, id: string) {
  return db.delete(automations).where(eq(automations.id, id)).returning({ id: automations.id });
}

/**
 * SQL condition on an `automations` row: its owner may still own automations — an enabled administrator. Runs act
 * with the owner's rights over the whole library, so an automation whose owner was demoted, disabled or deleted
 * (or passed to a non-administrator with the user's files) never starts again.
 */
const ownerMayOwnSql = sql`exists (select 1 from users ou where ou.id = ${automations.ownerId} and ou.is_admin = 1 and ou.enabled = 1)`;

/**
 * Enabled automations whose trigger is one of `types` and whose owner may own them (the event hook reads these once
 * per batch of events): the owner's right is checked again at every match, not only when it changed.
 */
export function enabledByTriggerTypes(db: Database, types: readonly string[]) {
  return db
    .select()
    .from(automations)
    .where(and(eq(automations.enabled, true), inIds(automations.triggerType, types), ownerMayOwnSql))
    .orderBy(asc(automations.id));
}

/** Enabled schedule automations due at `now` whose owner may own them. */
export function dueSchedules(db: Database, now: number, limit: number) {
  return db
    .select()
    .from(automations)
    .where(
      and(
        eq(automations.enabled, true),
        eq(automations.triggerType, "schedule"),
        isNotNull(automations.nextRunAt),
        lte(automations.nextRunAt, now),
        ownerMayOwnSql,
      ),
    )
    .orderBy(asc(automations.nextRunAt))
    .limit(limit);
}

/** Counts a started run (and, for schedules, moves the next firing time), only if the row is still as read. */
export function recordRunStatement(db: Database, id: string, now: number, nextRunAt?: number | null) {
  return db
    .update(automations)
    .set({ runs: sql`${automations.runs} + 1`, lastRunAt: now, ...(nextRunAt !== undefined ? { nextRunAt } : {}) })
    .where(eq(automations.id, id));
}

/**
 * Claims one schedule firing: moves `next_run_at` from the value read to the next one. Only the caller whose update
 * changed the row starts the run, so two overlapping cron ticks never start it twice.
 */
export async function claimScheduleRun(db: Database, id: string, expected: number, next: number | null, now: number): Promise<boolean> {
  const result = await db
    .update(automations)
    .set({ nextRunAt: next, runs: sql`${automations.runs} + 1`, lastRunAt: now })
    .where(and(eq(automations.id, id), eq(automations.nextRunAt, expected)))
    .run();
  return result.meta.changes > 0;
}

/** What conditions are judged on, for each live asset among `ids` (see udwf/conditions.ts `AssetFacts`). */
export interface AssetFactsRow {
  id: string;
  name: string;
  mime: string;
  owner_id: string;
  size: number;
  groups: string;
  ancestors: string;
  tags: string;
}

/** Facts of assets in one statement: main variant size of the latest version, groups with ancestors, tags. */
export async function assetFactsRows(db: Database, ids: readonly string[]): Promise<AssetFactsRow[]> {
  if (ids.length === 0) return [];
  return db.all<AssetFactsRow>(sql`
    select a.id, a.name, a.mime, a.owner_id,
      coalesce((
        select v.content_size from variants v join asset_versions av on av.id = v.version_id
        where v.asset_id = a.id and av.version = a.latest_version and v.status = 'ready'
          and v.variant_type in ('master', 'initial', 'untyped')
        order by case v.variant_type when 'master' then 0 when 'initial' then 1 else 2 end limit 1
      ), 0) as size,
      (select json_group_array(gm.group_id) from group_members gm where gm.el_id = a.id and gm.trashed_at is null) as groups,
      (select json_group_array(distinct gc.ancestor) from group_members gm join group_closure gc on gc.descendant = gm.group_id
        where gm.el_id = a.id and gm.trashed_at is null) as ancestors,
      (select json_group_array(et.tag_id) from entity_tags et where et.entity_id = a.id) as tags
    from assets a
    where a.id in (select value from json_each(${JSON.stringify(ids)})) and a.deleted_at is null`);
}

/** Which of the referenced ids exist, per kind (setup validation: one statement for every reference). */
export async function existingReferences(
  db: Database,
  refs: { tags: string[]; groups: string[]; fields: string[]; templates: string[] },
): Promise<{ kind: string; id: string; extra: string | null }[]> {
  const json = (ids: string[]) => JSON.stringify([...new Set(ids)]);
  return db.all(sql`
    select 'tag' as kind, id, null as extra from tags where id in (select value from json_each(${json(refs.tags)}))
    union all
    select 'group', id, null from groups where id in (select value from json_each(${json(refs.groups)})) and deleted_at is null
    union all
    select 'field', id, null from field_templates where id in (select value from json_each(${json(refs.fields)}))
    union all
    select 'template', id, operation_class from task_templates
      where id in (select value from json_each(${json(refs.templates)})) and disabled = 0`);
}

/** The first enabled task template of an operation class (built-ins first). */
export async function defaultTemplate(db: Database, operationClass: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await db.all<{ id: string; name: string }>(
    sql`select id, name from task_templates where operation_class = ${operationClass} and disabled = 0 order by id limit 1`,
  );
  return row;
}

/**
 * The statements (for one batch) that switch off the enabled automations of owners who may no longer own them —
 * one owner (`ownerId`, when an administrator demotes or disables him) or all of them (null, the cron's sweep, which
 * also catches an owner changed by any other path) — each with an `automation.disable` audit row naming the owner
 * and why. The audit rows are written first, from the same condition, so every switched-off automation has one.
 */
export function disableUnownedAutomationsStatements(o: { ownerId: string | null; actorId: string | null; reason: string; now: number }): SQL[] {
  const scope = o.ownerId === null ? sql`not ${ownerMayOwnSql}` : sql`${automations.ownerId} = ${o.ownerId}`;
  // Audit ids keep the time-ordered prefix of `newId` and a random tail per row.
  const idPrefix = o.now.toString(16).padStart(12, "0").slice(-12);
  return [
    sql`insert into audit_log (id, ctime, actor_id, action, object_type, object_id, details, ip)
        select ${idPrefix} || lower(hex(randomblob(10))), ${o.now}, ${o.actorId}, 'automation.disable', 'automation', ${automations.id},
          json_object('owner', ${automations.ownerId}, 'name', ${automations.name}, 'reason', ${o.reason}), null
        from ${automations} where ${automations.enabled} = 1 and ${scope}`,
    sql`update ${automations} set enabled = 0, next_run_at = null, mtime = ${o.now} where ${automations.enabled} = 1 and ${scope}`,
  ];
}
