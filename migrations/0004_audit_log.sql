CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`ctime` integer NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`object_type` text,
	`object_id` text,
	`details` text,
	`ip` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_ctime_idx` ON `audit_log` (`ctime`);--> statement-breakpoint
CREATE INDEX `audit_log_actor_idx` ON `audit_log` (`actor_id`,`ctime`);
