/** The twelve field types of SPEC §3; a module of its own so the browser can import it without the database layer. */
export const FIELD_TYPES = [
  "text",
  "number",
  "date",
  "time",
  "asset",
  "region",
  "struct",
  "group",
  "user",
  "bool",
  "external",
  "url",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
