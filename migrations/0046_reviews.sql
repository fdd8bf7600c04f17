-- Review decisions (decision record 036): every decision on a file's version is kept (who, when, which version,
-- the note), so the current status of a version is its newest decision and nothing is ever overwritten. Requests
-- ask one person by name to decide by a date. Both are read per asset (and per version), newest first.
CREATE TABLE `review_decisions` (
	`decision_id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version` integer NOT NULL,
	`status` text NOT NULL CHECK (`status` IN ('in_review', 'approved', 'changes_requested', 'rejected')),
	`by_id` text NOT NULL,
	`at` integer NOT NULL,
	`note` text
);
--> statement-breakpoint
CREATE INDEX `review_decisions_version_idx` ON `review_decisions` (`asset_id`, `version`, `at`, `decision_id`);
--> statement-breakpoint
CREATE INDEX `review_decisions_asset_idx` ON `review_decisions` (`asset_id`, `at`, `decision_id`);
--> statement-breakpoint
CREATE TABLE `review_requests` (
	`request_id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version` integer NOT NULL,
	`requester_id` text NOT NULL,
	`reviewer_id` text NOT NULL,
	`due` integer,
	`note` text,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `review_requests_asset_idx` ON `review_requests` (`asset_id`, `ctime`);
--> statement-breakpoint
CREATE INDEX `review_requests_reviewer_idx` ON `review_requests` (`reviewer_id`, `ctime`);
