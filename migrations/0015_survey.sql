-- Satisfaction survey (issue 15): one row per answer of the shell's survey modal (SPEC §4 "Survey", §7 POST /api/pqi).
-- rating 1..10, or 0 when the user refused the survey. Answers outlive their author (user_id set null on delete) so
-- the administrators' summary does not change when an account is removed.
CREATE TABLE `pqi_answers` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`ctime` integer NOT NULL,
	`rating` integer NOT NULL,
	`comment` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "pqi_answers_rating_range" CHECK("pqi_answers"."rating" BETWEEN 0 AND 10)
);
--> statement-breakpoint
CREATE INDEX `pqi_answers_ctime_idx` ON `pqi_answers` (`ctime`);--> statement-breakpoint
CREATE INDEX `pqi_answers_user_idx` ON `pqi_answers` (`user_id`,`ctime`);
