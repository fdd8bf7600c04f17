/** The bounded parsers of uploaded files (decision 027): one text extractor and the limits every parser keeps. */
export { extractDocument, extractSearchText, textKind, viewKind, type ExtractPurpose, type TextKind } from "./extract";
export type { ExtractedText, TextBlock } from "./collector";
export { ParseLimitError } from "./parse-limit";
export * as limits from "./limits";
