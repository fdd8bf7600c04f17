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
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_job_num_unique` ON `tasks` (`job_num`);--> statement-breakpoint
CREATE INDEX `tasks_claim_idx` ON `tasks` (`priority`,`job_num`) WHERE status = 'inqueue';--> statement-breakpoint
CREATE INDEX `tasks_owner_idx` ON `tasks` (`owner_id`,`job_num`);--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`,`job_num`);--> statement-breakpoint
CREATE INDEX `tasks_src_idx` ON `tasks` (`src_entity`);--> statement-breakpoint
CREATE TABLE `task_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`operation_class` text NOT NULL,
	`setup` text NOT NULL,
	`owner_id` text,
	`disabled` integer DEFAULT false NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `task_templates_class_idx` ON `task_templates` (`operation_class`);--> statement-breakpoint
CREATE TABLE `global_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`ctime` integer NOT NULL,
	`type` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`owner_id` text,
	`actor_id` text,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `global_events_event_id_unique` ON `global_events` (`event_id`);--> statement-breakpoint
CREATE INDEX `global_events_owner_idx` ON `global_events` (`owner_id`,`seq`);--> statement-breakpoint
CREATE INDEX `global_events_entity_idx` ON `global_events` (`entity_id`,`seq`);--> statement-breakpoint
-- Built-in templates: one or more profiles per operation class (ids 0…07xx are reserved for them).
INSERT INTO `task_templates` (`id`, `name`, `operation_class`, `setup`, `owner_id`, `disabled`, `ctime`, `mtime`) VALUES
	('00000000000000000000000000000701', 'Превью: все размеры', 'preview', '{"sizes":["thumb","medium"]}', NULL, 0, 0, 0),
	('00000000000000000000000000000702', 'Превью: только миниатюра', 'preview', '{"sizes":["thumb"]}', NULL, 0, 0, 0),
	('00000000000000000000000000000711', 'Технические данные', 'tech-fields', '{}', NULL, 0, 0, 0),
	('00000000000000000000000000000721', 'Копирование в группу', 'copy', '{}', NULL, 0, 0, 0),
	('00000000000000000000000000000731', 'Окончательное удаление', 'purge', '{}', NULL, 0, 0, 0),
	('00000000000000000000000000000741', 'Экспорт группы в ZIP', 'export', '{"recursive":false}', NULL, 0, 0, 0),
	('00000000000000000000000000000742', 'Экспорт группы с подгруппами в ZIP', 'export', '{"recursive":true}', NULL, 0, 0, 0),
	('00000000000000000000000000000751', 'Переиндексация', 'reindex', '{}', NULL, 0, 0, 0);
