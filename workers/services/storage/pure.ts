/**
 * The pure part of the storage domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export {
  BUCKET_LABEL,
  MAX_PARTS,
  MAX_SINGLE_UPLOAD_BYTES,
  MIN_PART_BYTES,
  MULTIPART_THRESHOLD_BYTES,
  S3_LINK_TTL_SECONDS,
  S3_OPS,
  S3_OP_METHOD,
  S3_OP_PURPOSE,
  STALE_UPLOAD_MS,
  TECHNICAL_MAX_UPLOAD_BYTES,
  UPLOAD_ID_PATTERN,
  partSizeFor,
  s3OpOf,
  s3SignedObject,
} from "./multipart-plan";
export type { S3Op } from "./multipart-plan";
