/**
 * Which automation trigger each global event type can fire. Only events about assets fire any; every other event
 * is written to the outbox already delivered (decision 024), so the dispatcher never looks at it.
 */
export const EVENT_TRIGGERS = {
  "asset.uploaded": "asset.uploaded",
  "tag.attached": "tag.added",
  "field.changed": "field.changed",
  "review.decided": "review.decided",
} as const satisfies Record<string, string>;

export type TriggeringEventType = keyof typeof EVENT_TRIGGERS;

/** Whether an event of this type about this kind of entity can start an automation run. */
export function canTrigger(entityType: string, type: string): type is TriggeringEventType {
  return entityType === "asset" && Object.hasOwn(EVENT_TRIGGERS, type);
}
