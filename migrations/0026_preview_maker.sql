-- Issue 26 (decision 029): who made a preview, so heal-on-view by a reader may replace a PDF's text card once with a
-- render of its first page and never anything else. Null for previews made before this migration.
ALTER TABLE `previews` ADD `maker` text;
