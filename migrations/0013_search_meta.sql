-- Search (decision 011), a follow-up of 0011_search.sql (already applied, so not edited): the metadata column of an
-- asset's document keeps what a person would search for and read in a snippet. File names come only from the
-- versions' own files (initial, master, untyped variants; not previews or watermarked copies) and only when they
-- differ from the asset's name; technical metadata drops the MIME type, the container and ISO time stamps (noise in
-- every snippet) and gains the resolution as `1600x1200`. The triggers of 0011 read the view by name, so they use
-- the new one at once; every document is rebuilt below.
DROP VIEW search_source_asset;
--> statement-breakpoint
CREATE VIEW search_source_asset AS
SELECT a.id AS entity_id, 'asset' AS entity_type, replace(replace(a.name, 'ё', 'е'), 'Ё', 'Е') AS name,
	replace(replace(trim(
		coalesce((SELECT group_concat(t.name, ' ') FROM entity_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entity_id = a.id), '') || ' ' ||
		coalesce((SELECT c.name FROM asset_classes c WHERE c.id = a.class_id), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM field_values fv, json_tree(CASE WHEN json_valid(fv.data) THEN fv.data ELSE 'null' END) j
			WHERE fv.entity_id = a.id AND j.type IN ('text', 'integer', 'real')), '') || ' ' ||
		coalesce((SELECT group_concat(x.name, ' ') FROM taxon_members tm JOIN taxa x ON x.id = tm.taxon_id WHERE tm.object_id = a.id), '') || ' ' ||
		coalesce((SELECT group_concat(DISTINCT v.file_name) FROM variants v
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.variant_type IN ('initial', 'master', 'untyped') AND v.file_name <> a.name), '') || ' ' ||
		coalesce((SELECT group_concat(json_extract(v.tech_fields, '$.width') || 'x' || json_extract(v.tech_fields, '$.height'), ' ') FROM variants v
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.variant_type IN ('initial', 'master', 'untyped') AND json_valid(v.tech_fields)
				AND json_type(v.tech_fields, '$.width') = 'integer' AND json_type(v.tech_fields, '$.height') = 'integer'), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM variants v, json_tree(CASE WHEN json_valid(v.tech_fields) THEN v.tech_fields ELSE 'null' END) j
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.variant_type IN ('initial', 'master', 'untyped') AND v.tech_fields IS NOT NULL
				AND j.type = 'text' AND length(j.value) <= 200 AND NOT (j.path = '$' AND j.key IN ('mime', 'container'))
				AND j.value NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*'), '')
	), 'ё', 'е'), 'Ё', 'Е') AS meta,
	replace(replace(coalesce((SELECT sc.text FROM search_content sc WHERE sc.asset_id = a.id), ''), 'ё', 'е'), 'Ё', 'Е') AS content
FROM assets a;
--> statement-breakpoint
DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_type = 'asset');
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content)
	SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id;
