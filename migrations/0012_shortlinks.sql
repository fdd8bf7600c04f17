-- Shortlinks (issue 12): links that share an asset or a group with anyone, and the outbox of mailed invitations.
CREATE TABLE `shortlinks` (
	`id` text PRIMARY KEY NOT NULL,
	`entity_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`creator_id` text NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL,
	`not_before` integer,
	`not_after` integer,
	`password_hash` text,
	`acl` integer NOT NULL,
	`emails` text,
	`revoked_at` integer,
	`revoked_by` text,
	`views` integer DEFAULT 0 NOT NULL,
	`downloads` integer DEFAULT 0 NOT NULL,
	`last_opened_at` integer,
	FOREIGN KEY (`creator_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shortlinks_entity_idx` ON `shortlinks` (`entity_id`,`ctime`);--> statement-breakpoint
CREATE INDEX `shortlinks_active_idx` ON `shortlinks` (`revoked_at`,`ctime`);--> statement-breakpoint
CREATE TABLE `outgoing_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`ctime` integer NOT NULL,
	`recipients` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`object_type` text,
	`object_id` text,
	`actor_id` text
);
--> statement-breakpoint
CREATE INDEX `outgoing_emails_object_idx` ON `outgoing_emails` (`object_id`,`ctime`);
