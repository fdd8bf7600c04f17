import { z } from "@hono/zod-openapi";
import { ID_PATTERN } from "../lib/ids";
import { visibleName } from "../lib/visible-name";

export { visibleName };

/** Reusable field schemas shared by every router (and by forms in the browser). */

/** An entity id: 32 lowercase hex characters; anything else is a 400 before any lookup. */
export const IdSchema = z.string().regex(ID_PATTERN, "ожидается идентификатор из 32 шестнадцатеричных символов").openapi({
  example: "01936f0c8a4b7c3d9e2f0a1b2c3d4e5f",
});

/** `{ id }` path parameters. */
export const IdParamsSchema = z.object({ id: IdSchema.openapi({ param: { name: "id", in: "path" } }) });

// Control characters (C0, DEL, C1) never belong in a name; '/' separates path segments (entity-by-path).
// eslint-disable-next-line no-control-regex
const FORBIDDEN_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f/]/;

const NAME_CHAR = String.raw`[^\s\u0000-\u001f\u007f-\u009f/\p{Cf}\u2028\u2029\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]`;
const NAME_INNER = String.raw`[^\u0000-\u001f\u007f-\u009f/\p{Cf}\u2028\u2029\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]`;
/** A name as JSON Schema (ECMA-262, Unicode) states it: a visible first and last character, none forbidden between. */
const ENTITY_NAME_PATTERN = `^${NAME_CHAR}(?:${NAME_INNER}*${NAME_CHAR})?$`;
/** The same without the '/' rule: text that is not a path segment (record keys) but is still visible and trimmed. */
export const VISIBLE_TEXT_PATTERN = ENTITY_NAME_PATTERN.replaceAll(String.raw`\u009f/`, String.raw`\u009f`);
/**
 * Text the product trims before checking it (`.trim().min(1)` and the visible-text rules): whitespace around is taken
 * and dropped, but there must be a visible character; `\s` is exactly what String.prototype.trim removes.
 */
export const TRIMMED_TEXT_PATTERN = String.raw`^\s*` + VISIBLE_TEXT_PATTERN.slice(1, -1) + String.raw`\s*$`;
/** Text that must hold something besides whitespace (`.trim().min(1)` with no other character rule). */
export const NON_BLANK_PATTERN = String.raw`\S`;

/**
 * A group or asset name: 1–255 characters, no '/', no control characters, not '.' or '..', no surrounding
 * whitespace. Stored exactly as given (Cyrillic, emoji and any other Unicode round-trip unchanged).
 */
export const EntityNameSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((v) => !FORBIDDEN_NAME_CHARS.test(v), "имя не может содержать «/» и управляющие символы")
  .refine((v) => v !== "." && v !== "..", "имя не может быть «.» или «..»")
  .refine((v) => v.trim() === v, "имя не может начинаться или заканчиваться пробелом")
  .check(visibleName)
  .openapi({
    example: "Съёмка 2026 🎬",
    // the refinements above, published: no '/', control or invisible character, no surrounding whitespace, not '.'
    // or '..' (a joiner inside an emoji sequence, which the product also takes, is the one thing this leaves out)
    pattern: ENTITY_NAME_PATTERN,
    not: { enum: [".", ".."] },
  });

/** A MIME type such as `video/mp4`. */
export const MimeSchema = z
  .string()
  .max(255)
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*\/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*(;.*)?$/, "ожидается MIME-тип, например video/mp4")
  .openapi({ example: "video/mp4" });

/** skip/take paging; take defaults to the group page size and is capped. */
export const PagingQuerySchema = z.object({
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(500).default(50),
});
