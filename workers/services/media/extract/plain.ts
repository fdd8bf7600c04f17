import { MAX_JSON_BYTES, MAX_JSON_DEPTH, MAX_MARKDOWN_LINE_CHARS } from "./limits";

/**
 * The plain-text family: decoding, and what the search index keeps of Markdown, JSON and subtitles. Every
 * function is linear in its input and bounded (limits.ts): no recursion on nesting, no patterns over huge lines.
 */

/** UTF-8 (BOM dropped), else Windows-1251 when the bytes are not valid UTF-8 (old Russian text files). */
export function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1251").decode(bytes);
  }
}

/** The string and number values of a JSON document (keys and punctuation say little), or the raw text. */
export function jsonText(text: string): string {
  if (text.length > MAX_JSON_BYTES) return text;
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return text;
  }
  const out: string[] = [];
  // Depth-first without recursion; levels past MAX_JSON_DEPTH are skipped.
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === "string" || typeof value === "number") out.push(String(value));
    else if (depth < MAX_JSON_DEPTH && value && typeof value === "object") {
      const children = Array.isArray(value) ? value : Object.values(value);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i], depth: depth + 1 });
    }
  }
  return out.join("\n");
}

/** Subtitle cues without numbers, timings and markup. */
export function subtitleText(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s*(\d+|WEBVTT.*|NOTE.*|[\d:.,]+\s*-->\s*[\d:.,]+.*)\s*$/.test(line))
    .map((line) => line.replace(/<[^<>]*>/g, "").trim())
    .filter(Boolean)
    .join("\n");
}

/** Markdown as the text a reader sees: headings, quotes, list markers, emphasis, code fences and link targets dropped. */
export function markdownText(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s*(```|~~~)/.test(line))
    .map((line) =>
      line.length > MAX_MARKDOWN_LINE_CHARS
        ? line
        : line
            .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+\[[ xX]\]\s+|[-*+]\s+|\d+[.)]\s+)/, "")
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
            // Emphasis and code marks only at word edges (snake_case names keep their underscores).
            .replace(/(^|[^\p{L}\p{N}])(\*\*|__|\*|_|`)(\S(?:.*?\S)?)\2(?![\p{L}\p{N}])/gu, "$1$3"),
    )
    .join("\n");
}
