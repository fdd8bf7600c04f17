-- A default descriptive metadata set (decision record 009, «Default set»): nine fields mapped to IPTC Core / XMP keys
-- (the importer resolves each key to XMP, then IPTC-IIM, then EXIF, in workers/services/metadata/embedded-keys.ts) and
-- the class «Основные сведения» listing them, which the viewer shows for files without a class.
--
-- Idempotent and safe on an existing install: a field is only added when no template has the same name (as typed, in
-- lower case or in capitals: SQLite's lower() folds ASCII only), and the class lists whichever template carries each
-- name, so fields an administrator made before are reused, never duplicated. Ids are fixed so the class can be found
-- (DEFAULT_CLASS_ID); everything stays editable and deletable afterwards.
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f01', 'Заголовок', 'text', '{"format":"line","max_length":500}', 10, 'XMP', 'XMP-dc:Title', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f01' OR `name` IN ('Заголовок', 'заголовок', 'ЗАГОЛОВОК'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f02', 'Описание', 'text', '{"format":"multiline","max_length":10000}', 20, 'XMP', 'XMP-dc:Description', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f02' OR `name` IN ('Описание', 'описание', 'ОПИСАНИЕ'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f03', 'Ключевые слова', 'text', '{"format":"line","multiple":true,"max_length":200}', 30, 'XMP', 'XMP-dc:Subject', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f03' OR `name` IN ('Ключевые слова', 'ключевые слова', 'КЛЮЧЕВЫЕ СЛОВА'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f04', 'Автор', 'text', '{"format":"line","max_length":500}', 40, 'XMP', 'XMP-dc:Creator', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f04' OR `name` IN ('Автор', 'автор', 'АВТОР'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f05', 'Авторские права', 'text', '{"format":"line","max_length":1000}', 50, 'XMP', 'XMP-dc:Rights', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f05' OR `name` IN ('Авторские права', 'авторские права', 'АВТОРСКИЕ ПРАВА'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f06', 'Правообладатель', 'text', '{"format":"line","max_length":500}', 60, 'XMP', 'XMP-photoshop:Credit', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f06' OR `name` IN ('Правообладатель', 'правообладатель', 'ПРАВООБЛАДАТЕЛЬ'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f07', 'Условия использования', 'text', '{"format":"multiline","max_length":5000}', 70, 'XMP', 'XMP-xmpRights:UsageTerms', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f07' OR `name` IN ('Условия использования', 'условия использования', 'УСЛОВИЯ ИСПОЛЬЗОВАНИЯ'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f08', 'Дата съёмки', 'date', '{"format":"date"}', 80, 'XMP', 'XMP-photoshop:DateCreated', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f08' OR `name` IN ('Дата съёмки', 'дата съёмки', 'ДАТА СЪЁМКИ'));
--> statement-breakpoint
INSERT INTO `field_templates` (`id`, `name`, `field_type`, `setup`, `priority`, `extsys`, `extsys_key`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0f09', 'Место', 'text', '{"format":"line","max_length":500}', 90, 'XMP', 'XMP-iptcCore:Location', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `field_templates` WHERE `id` = '000000000000000000000000000d0f09' OR `name` IN ('Место', 'место', 'МЕСТО'));
--> statement-breakpoint
INSERT INTO `asset_classes` (`id`, `name`, `def_fields`, `ctime`, `mtime`)
SELECT '000000000000000000000000000d0c01', 'Основные сведения',
	(SELECT json_group_array(`id`) FROM (SELECT `id` FROM `field_templates` WHERE `name` IN ('Заголовок', 'заголовок', 'ЗАГОЛОВОК', 'Описание', 'описание', 'ОПИСАНИЕ', 'Ключевые слова', 'ключевые слова', 'КЛЮЧЕВЫЕ СЛОВА', 'Автор', 'автор', 'АВТОР', 'Авторские права', 'авторские права', 'АВТОРСКИЕ ПРАВА', 'Правообладатель', 'правообладатель', 'ПРАВООБЛАДАТЕЛЬ', 'Условия использования', 'условия использования', 'УСЛОВИЯ ИСПОЛЬЗОВАНИЯ', 'Дата съёмки', 'дата съёмки', 'ДАТА СЪЁМКИ', 'Место', 'место', 'МЕСТО') ORDER BY `priority`, `name`)),
	CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM `asset_classes` WHERE `id` = '000000000000000000000000000d0c01' OR `name` IN ('Основные сведения', 'основные сведения', 'ОСНОВНЫЕ СВЕДЕНИЯ'));
