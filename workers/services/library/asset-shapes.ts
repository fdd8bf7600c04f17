/** The shapes of assets, versions and variants as the API answers them and the UI reads them. */
import type { ReviewStatus } from "../../../shared/review-status";
import { type TrashLocation } from "./trash-location.service";
import type { VariantType } from "../../db/schema/index";
import { type AccessLevel } from "../access";

export interface TagRef {
  tag_id: string;
  tag_name: string;
}

/** SPEC §3 Variant, plus its hash, time and version number. */
export interface VariantView {
  variant_id: string;
  storage: string;
  name: string;
  mime_type: string;
  format: string | null;
  variant_type: VariantType;
  content_size: number;
  file_name: string;
  preview_storage_id: string | null;
  metadata_storage_id: string | null;
  user_id: string;
  sha256: string | null;
  ctime: string;
  version: number;
}

/** SPEC §3 Version: one row per ready variant of a version. */
/** A listed version's state: made by create-version and empty, receiving bytes, or committed. */
export type VersionState = "empty" | "uploading" | "ready";

export interface VersionEntry {
  version: number;
  state: VersionState;
  /** null until the version's bytes are committed */
  version_id: string | null;
  desc: string | null;
  ctime: string;
  variant_id: string;
  variant_name: string;
  variant_type: VariantType;
  user_id: string;
  content_size: number;
  mime_type: string;
  file_name: string;
}

export interface HashEntry {
  alg: "sha256";
  value: string;
}

export interface GroupRef {
  group_id: string;
  group_name: string;
}

/** SPEC §3 Asset with the Info form fields (ver, var, var_size, var_hash). */
export interface AssetInfo {
  asset_id: string;
  name: string;
  owner: string;
  owner_name: string | null;
  creator: string;
  creator_name: string | null;
  ctime: string;
  mtime: string;
  atime: string;
  mimetype: string;
  class: string | null;
  tags: TagRef[];
  default_storage: string;
  /** access levels the caller holds on the asset */
  asset_access: AccessLevel[];
  asset_latest_version: number;
  asset_latest_version_variants: VariantView[];
  /**
   * SPEC §3 asset_links: the folders that list the asset and the caller may see (an asset may be linked into several
   * groups, like a hard link; `member-of` answers the same). SPEC does not say more, see docs/api.md "From SPEC".
   */
  asset_links: GroupRef[];
  /** latest version number; 0 while the asset has no bytes */
  ver: number;
  /** main variant of the latest version (master, else initial, else untyped) */
  var: string | null;
  var_size: number | null;
  var_hash: HashEntry[];
  /** the current review status of the latest version (decision record 036); null while nobody decided on it */
  review_status: ReviewStatus | null;
}

/** The sections `GET /api/asset/{id}` adds on request. */
export interface AssetSections {
  versions?: VersionEntry[];
  variants?: VariantView[];
  groups?: GroupRef[];
  tags?: TagRef[];
}

export type AssetView = { asset_id: string } & Partial<AssetInfo> & AssetSections;

/** What `getAsset` reads; `info` (all Asset fields) is on unless set to false. */
export interface AssetOptions {
  info?: boolean;
  versions?: boolean;
  variants?: boolean;
  groups?: boolean;
  tags?: boolean;
}

export interface VersionView {
  version_id: string;
  asset_id: string;
  version: number;
  desc: string | null;
  ctime: string;
  user_id: string;
}

export interface TrashedAsset {
  asset_id: string;
  name: string;
  mimetype: string;
  owner: string;
  ver: number;
  deleted_at: string;
  /** when the asset is purged for good */
  purge_at: string;
  /** the folder it is listed in, where a restore puts it back (null when the caller may not read one) */
  location: TrashLocation | null;
}

export interface AssetListItem {
  asset_id: string;
  name: string;
  mimetype: string;
  ctime: string;
  mtime: string;
  ver: number;
}

export interface CreateAssetInput {
  asset_name: string;
  asset_mime: string;
  in_group?: string | null;
  asset_class?: string | null;
}

export interface UpdateAssetInput {
  asset_name?: string;
  asset_mime?: string;
  asset_class?: string | null;
}

export interface Paging {
  skip: number;
  take: number;
}
