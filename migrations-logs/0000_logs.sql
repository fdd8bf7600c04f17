-- The LOGS database (decision 038): audit rows, finished tasks and delivered outbox events older than 30 days, moved
-- here from the hot database (DB) by the minute cron. Same table names and columns as there, so the readers' filters
-- run unchanged on both; the indexes are the ones the readers page by.
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`ctime` integer NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`object_type` text,
	`object_id` text,
	`details` text,
	`ip` text,
	`folder_id` text
);
CREATE INDEX `audit_log_ctime_idx` ON `audit_log` (`ctime`);
CREATE INDEX `audit_log_actor_idx` ON `audit_log` (`actor_id`, `ctime`);
CREATE INDEX `audit_log_object_idx` ON `audit_log` (`object_id`, `ctime`);
CREATE INDEX `audit_log_folder_idx` ON `audit_log` (`folder_id`, `ctime`);
CREATE INDEX `audit_log_action_idx` ON `audit_log` (`action`, `ctime`);

CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`job_num` integer NOT NULL,
	`template_id` text,
	`template` text,
	`operation_class` text NOT NULL,
	`name` text NOT NULL,
	`owner_id` text,
	`affected` text NOT NULL,
	`src_entity` text,
	`dst_entity` text,
	`options` text NOT NULL,
	`worker_info` text,
	`schedule_time` integer NOT NULL,
	`start_time` integer,
	`stop_time` integer,
	`progress` real DEFAULT 0 NOT NULL,
	`progress_info` text,
	`status` text NOT NULL,
	`priority` integer DEFAULT 5 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`cursor` text,
	`result` text,
	`error` text,
	`heartbeat` integer,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
CREATE INDEX `tasks_job_num_idx` ON `tasks` (`job_num`);
CREATE INDEX `tasks_owner_idx` ON `tasks` (`owner_id`, `job_num`);
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`, `job_num`);
CREATE INDEX `tasks_src_idx` ON `tasks` (`src_entity`);

-- `seq` keeps the hot database's number (no AUTOINCREMENT here: rows arrive with theirs).
CREATE TABLE `global_events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`ctime` integer NOT NULL,
	`type` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`owner_id` text,
	`actor_id` text,
	`data` text NOT NULL,
	`delivered_at` integer,
	`cause_task_id` text,
	`cause_depth` integer
);
CREATE UNIQUE INDEX `global_events_event_id_unique` ON `global_events` (`event_id`);
CREATE INDEX `global_events_owner_idx` ON `global_events` (`owner_id`, `seq`);
CREATE INDEX `global_events_entity_idx` ON `global_events` (`entity_id`, `seq`);

-- The rows of a slice copied here whose originals the hot database may still hold: written in the same batch as the
-- copy, removed once the originals are deleted. A reader shows a pending row from here only when the hot database
-- no longer has it, so a move stopped between the two databases neither loses nor doubles a row.
CREATE TABLE `move_pending` (
	`tbl` text NOT NULL,
	`key` text NOT NULL,
	PRIMARY KEY (`tbl`, `key`)
) WITHOUT ROWID;
