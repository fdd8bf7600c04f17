CREATE TABLE `automations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`trigger_type` text NOT NULL,
	`trigger` text NOT NULL,
	`conditions` text NOT NULL,
	`actions` text NOT NULL,
	`secret` text NOT NULL,
	`next_run_at` integer,
	`last_run_at` integer,
	`runs` integer DEFAULT 0 NOT NULL,
	`owner_id` text NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `automations_trigger_idx` ON `automations` (`trigger_type`,`enabled`);--> statement-breakpoint
CREATE INDEX `automations_due_idx` ON `automations` (`next_run_at`) WHERE "automations"."enabled" = 1 and "automations"."trigger_type" = 'schedule';
