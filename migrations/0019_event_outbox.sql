-- Decision 024: global_events is the outbox of automations. An event waits for the dispatcher while `delivered_at`
-- is null; events no automation can react to are written delivered. `cause_task_id` / `cause_depth`: the run that
-- made the change (its events start runs one level deeper; loops stop at the depth limit).
ALTER TABLE `global_events` ADD `delivered_at` integer;--> statement-breakpoint
ALTER TABLE `global_events` ADD `cause_task_id` text;--> statement-breakpoint
ALTER TABLE `global_events` ADD `cause_depth` integer;--> statement-breakpoint
-- Events recorded before the outbox were handed over in-process already (or lost): never deliver them again.
UPDATE `global_events` SET `delivered_at` = `ctime`;--> statement-breakpoint
CREATE INDEX `global_events_undelivered_idx` ON `global_events` (`seq`) WHERE "global_events"."delivered_at" is null;--> statement-breakpoint
-- One row per (event, workflow) the event fired: the primary key is what makes delivery exactly once. `task_id` is
-- the run's task (null when the chain-depth limit stopped it); `handover` is what the hand-over step does (JSON);
-- `handed_at` is set once the Workflow instance exists (or the stop is logged).
CREATE TABLE `event_deliveries` (
	`event_id` text NOT NULL,
	`workflow_id` text NOT NULL,
	`task_id` text,
	`handover` text NOT NULL,
	`ctime` integer NOT NULL,
	`handed_at` integer,
	PRIMARY KEY(`event_id`, `workflow_id`)
);
--> statement-breakpoint
CREATE INDEX `event_deliveries_pending_idx` ON `event_deliveries` (`ctime`) WHERE "event_deliveries"."handed_at" is null;
