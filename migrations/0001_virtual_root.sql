-- The virtual root group: fixed id of 32 'f' characters, listed by /mam as 'Доступные Файлы'.
INSERT INTO `groups` (`id`, `name`, `parent_id`, `owner_id`, `tags`, `ctime`, `mtime`)
VALUES ('ffffffffffffffffffffffffffffffff', 'Доступные Файлы', NULL, NULL, '[]', 0, 0);
--> statement-breakpoint
INSERT INTO `group_closure` (`ancestor`, `descendant`, `depth`)
VALUES ('ffffffffffffffffffffffffffffffff', 'ffffffffffffffffffffffffffffffff', 0);
