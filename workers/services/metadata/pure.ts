/**
 * The pure part of the metadata domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { STRUCT_MEMBER_TYPES } from "./field-types/setup";
export type { FieldSetup, StructMemberType } from "./field-types/setup";
export { FIELD_TYPES } from "./field-types/types";
export type { FieldType } from "./field-types/types";
export { validateFieldValue } from "./field-types/validate";
export { DEFAULT_CLASS_ID } from "./default-set";
