/**
 * The catalog's migrations (`migrations/`), bundled as text, in the order wrangler applies them to `DB`: a library
 * shard applies the same ones to its own SQLite (decision 043), so the repositories find the schema they were written
 * for. `tests/unit/catalog-migrations.test.ts` fails when a file in `migrations/` is missing here.
 */
import m0000 from "../../migrations/0000_init.sql";
import m0001 from "../../migrations/0001_virtual_root.sql";
import m0002 from "../../migrations/0002_library.sql";
import m0003 from "../../migrations/0003_multipart.sql";
import m0004 from "../../migrations/0004_audit_log.sql";
import m0005 from "../../migrations/0005_access.sql";
import m0006 from "../../migrations/0006_users.sql";
import m0007 from "../../migrations/0007_tasks.sql";
import m0008 from "../../migrations/0008_metadata.sql";
import m0009 from "../../migrations/0009_automations.sql";
import m0010 from "../../migrations/0010_storage_key_and_trash_indexes.sql";
import m0011 from "../../migrations/0011_search.sql";
import m0012 from "../../migrations/0012_shortlinks.sql";
import m0013 from "../../migrations/0013_search_meta.sql";
import m0014 from "../../migrations/0014_folder_rollups_and_seek.sql";
import m0015 from "../../migrations/0015_survey.sql";
import m0016 from "../../migrations/0016_search_prefix_index.sql";
import m0017 from "../../migrations/0017_shop.sql";
import m0019 from "../../migrations/0019_event_outbox.sql";
import m0022 from "../../migrations/0022_reserved_versions.sql";
import m0023 from "../../migrations/0023_cache_revisions.sql";
import m0024 from "../../migrations/0024_search_epoch.sql";
import m0026 from "../../migrations/0026_preview_maker.sql";
import m0028 from "../../migrations/0028_session_binding.sql";
import m0029 from "../../migrations/0029_heal_candidates.sql";
import m0042 from "../../migrations/0042_subtree_files_version.sql";
import m0043 from "../../migrations/0043_seek_spans.sql";
import m0044 from "../../migrations/0044_collections.sql";
import m0045 from "../../migrations/0045_comments_notifications.sql";
import m0046 from "../../migrations/0046_reviews.sql";
import m0047 from "../../migrations/0047_audit_file_events.sql";
import m0048 from "../../migrations/0048_default_metadata.sql";
import m0049 from "../../migrations/0049_duplicates.sql";
import m0050 from "../../migrations/0050_comment_counts.sql";
import m0051 from "../../migrations/0051_review_paging.sql";
import m0052 from "../../migrations/0052_comment_revisions.sql";
import m0053 from "../../migrations/0053_collection_seek.sql";
import m0054 from "../../migrations/0054_logs_move.sql";
import m0055 from "../../migrations/0055_search_visibility.sql";
import m0056 from "../../migrations/0056_search_index_feed.sql";
import m0057 from "../../migrations/0057_search_layout.sql";
import m0058 from "../../migrations/0058_library_directory.sql";
import m0059 from "../../migrations/0059_shard_copies.sql";
import m0060 from "../../migrations/0060_library_writeback.sql";
import m0061 from "../../migrations/0061_library_crossing.sql";
import m0062 from "../../migrations/0062_link_counts_keep_shared_revision.sql";

export const CATALOG_MIGRATIONS: readonly { name: string; sql: string }[] = [
  { name: "0000_init.sql", sql: m0000 },
  { name: "0001_virtual_root.sql", sql: m0001 },
  { name: "0002_library.sql", sql: m0002 },
  { name: "0003_multipart.sql", sql: m0003 },
  { name: "0004_audit_log.sql", sql: m0004 },
  { name: "0005_access.sql", sql: m0005 },
  { name: "0006_users.sql", sql: m0006 },
  { name: "0007_tasks.sql", sql: m0007 },
  { name: "0008_metadata.sql", sql: m0008 },
  { name: "0009_automations.sql", sql: m0009 },
  { name: "0010_storage_key_and_trash_indexes.sql", sql: m0010 },
  { name: "0011_search.sql", sql: m0011 },
  { name: "0012_shortlinks.sql", sql: m0012 },
  { name: "0013_search_meta.sql", sql: m0013 },
  { name: "0014_folder_rollups_and_seek.sql", sql: m0014 },
  { name: "0015_survey.sql", sql: m0015 },
  { name: "0016_search_prefix_index.sql", sql: m0016 },
  { name: "0017_shop.sql", sql: m0017 },
  { name: "0019_event_outbox.sql", sql: m0019 },
  { name: "0022_reserved_versions.sql", sql: m0022 },
  { name: "0023_cache_revisions.sql", sql: m0023 },
  { name: "0024_search_epoch.sql", sql: m0024 },
  { name: "0026_preview_maker.sql", sql: m0026 },
  { name: "0028_session_binding.sql", sql: m0028 },
  { name: "0029_heal_candidates.sql", sql: m0029 },
  { name: "0042_subtree_files_version.sql", sql: m0042 },
  { name: "0043_seek_spans.sql", sql: m0043 },
  { name: "0044_collections.sql", sql: m0044 },
  { name: "0045_comments_notifications.sql", sql: m0045 },
  { name: "0046_reviews.sql", sql: m0046 },
  { name: "0047_audit_file_events.sql", sql: m0047 },
  { name: "0048_default_metadata.sql", sql: m0048 },
  { name: "0049_duplicates.sql", sql: m0049 },
  { name: "0050_comment_counts.sql", sql: m0050 },
  { name: "0051_review_paging.sql", sql: m0051 },
  { name: "0052_comment_revisions.sql", sql: m0052 },
  { name: "0053_collection_seek.sql", sql: m0053 },
  { name: "0054_logs_move.sql", sql: m0054 },
  { name: "0055_search_visibility.sql", sql: m0055 },
  { name: "0056_search_index_feed.sql", sql: m0056 },
  { name: "0057_search_layout.sql", sql: m0057 },
  { name: "0058_library_directory.sql", sql: m0058 },
  { name: "0059_shard_copies.sql", sql: m0059 },
  { name: "0060_library_writeback.sql", sql: m0060 },
  { name: "0061_library_crossing.sql", sql: m0061 },
  { name: "0062_link_counts_keep_shared_revision.sql", sql: m0062 },
];
