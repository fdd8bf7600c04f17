-- Decision 038: the minute cron moves old finished tasks and delivered events to the LOGS database. These partial
-- indexes let it find the next slice without walking the whole table every minute (audit_log has its ctime index).
CREATE INDEX `tasks_finished_mtime_idx` ON `tasks` (`mtime`) WHERE status in ('done', 'error', 'canceled');--> statement-breakpoint
CREATE INDEX `global_events_delivered_ctime_idx` ON `global_events` (`ctime`) WHERE delivered_at is not null;
