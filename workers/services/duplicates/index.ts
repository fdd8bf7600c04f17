/**
 * Duplicates: files with the same bytes (SHA-256 of the current version) and pictures with a near preview (difference
 * hash), for one file, for hashes a client computed before uploading, and for the whole library (administrators).
 * Every answer holds only files the caller may read.
 *
 * The domain's public face (decision record 025): code outside workers/services/duplicates/ imports only this file.
 */
export {
  DUPLICATE_GROUPS_PER_PAGE,
  MAX_DUPLICATES,
  MAX_LOOKUP_HASHES,
  MAX_SIMILAR_SCAN,
  assetDuplicates,
  clusterNear,
  libraryDuplicates,
  lookupHashes,
} from "./duplicates.service";
export type { DuplicateFile, DuplicateGroup } from "./duplicates.service";
