import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/** What a browser may make for a version on view (decision 029): a video proxy, a preview kind, or a waveform. */
export const HEAL_KINDS = ["proxy", "thumb", "medium", "strip", "waveform"] as const;
export type HealKind = (typeof HEAL_KINDS)[number];

/**
 * A heal made by someone without `update` on the file: seen by its maker alone until a user with `update` accepts
 * it (its bytes then become the shared preview, proxy or waveform). Kept apart from `previews` and `variants` so no
 * read of the shared rows (grid, shared links, WOPI, search) can show it by mistake. One per version, kind and maker:
 * a new heal by the same maker replaces his earlier one.
 */
export const healCandidates = sqliteTable(
  "heal_candidates",
  {
    id: idColumn(),
    assetId: text("asset_id").notNull(),
    versionId: text("version_id").notNull(),
    kind: text("kind", { enum: HEAL_KINDS }).notNull(),
    madeBy: text("made_by").notNull(),
    /** where the bytes are: the version's storage for a proxy, the default R2 storage for pictures and peaks */
    storageId: text("storage_id").notNull(),
    storageKey: text("storage_key").notNull(),
    mimeType: text("mime_type").notNull(),
    width: integer("width", { mode: "number" }),
    height: integer("height", { mode: "number" }),
    contentSize: integer("content_size", { mode: "number" }).notNull(),
    sha256: text("sha256"),
    /** for pictures, the preview maker it becomes when accepted ("browser", "page") */
    maker: text("maker"),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("heal_candidates_slot_idx").on(t.versionId, t.kind, t.madeBy),
    index("heal_candidates_asset_idx").on(t.assetId),
    index("heal_candidates_storage_key_idx").on(t.storageKey),
  ],
);

export type HealCandidateRow = typeof healCandidates.$inferSelect;
