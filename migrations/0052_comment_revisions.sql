-- Decision 035, «A file's comment list cached per revision»: a file's comment list is kept, serialised, under the
-- revision it was read at. `comment_revisions.revision` grows in the statement of every change to a file's comments
-- (a trigger: creating, editing, resolving, reopening, deleting a thread, whatever route does it), so an answer kept
-- before a change is never served after it. Rows are never deleted, so a revision never repeats for a file.
-- The list also shows people: authors' names and the mentioned users' logins. Those live in `users`, so the scope
-- `people` of `cache_revisions` grows with any change of a login or a name (an update writing the same ones does
-- not count: sign-in may rewrite them), and with a user's removal.
CREATE TABLE `comment_revisions` (
	`asset_id` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `comment_revisions` (`asset_id`, `revision`) SELECT DISTINCT `asset_id`, 1 FROM `comments`;
--> statement-breakpoint
CREATE TRIGGER `comment_revisions_ai` AFTER INSERT ON `comments` BEGIN
	INSERT INTO comment_revisions (asset_id, revision) VALUES (new.asset_id, 1)
		ON CONFLICT (asset_id) DO UPDATE SET revision = revision + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `comment_revisions_au` AFTER UPDATE ON `comments` BEGIN
	INSERT INTO comment_revisions (asset_id, revision) VALUES (new.asset_id, 1)
		ON CONFLICT (asset_id) DO UPDATE SET revision = revision + 1;
	INSERT INTO comment_revisions (asset_id, revision) SELECT old.asset_id, 1 WHERE old.asset_id <> new.asset_id
		ON CONFLICT (asset_id) DO UPDATE SET revision = revision + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `comment_revisions_ad` AFTER DELETE ON `comments` BEGIN
	INSERT INTO comment_revisions (asset_id, revision) VALUES (old.asset_id, 1)
		ON CONFLICT (asset_id) DO UPDATE SET revision = revision + 1;
END;
--> statement-breakpoint
INSERT INTO `cache_revisions` (`scope`, `revision`) VALUES ('people', 1);
--> statement-breakpoint
CREATE TRIGGER `cache_rev_people_update` AFTER UPDATE OF login, name ON `users`
	WHEN old.login IS NOT new.login OR old.name IS NOT new.name BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'people';
END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_people_delete` AFTER DELETE ON `users` BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'people';
END;
