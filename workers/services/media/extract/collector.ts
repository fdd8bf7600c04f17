import { MAX_BLOCKS } from "./limits";

/** One piece of a document's shape, for rendering without an office server. */
export type TextBlock = { type: "heading" | "paragraph"; text: string } | { type: "row"; cells: string[] } | { type: "sheet"; name: string };

export interface ExtractedText {
  /** "plain", "pdf", "docx", "xlsx", "pptx", "odt", "ods", "odp", or null when the type is not one we read */
  kind: string | null;
  text: string;
  blocks: TextBlock[];
  /** the text and the blocks were cut at the limits (together: the blocks never hold more than the text) */
  truncated: boolean;
}

const lineOf = (b: TextBlock) => (b.type === "row" ? b.cells.join("\t") : b.type === "sheet" ? b.name : b.text);

/**
 * Gathers blocks up to a character budget and MAX_BLOCKS. The text is the blocks' lines joined by newlines, so
 * cutting one cuts the other at the same point: the last block that does not fit whole is cut to what remains
 * (a row is dropped whole), and nothing after it is kept.
 */
export class Collector {
  readonly blocks: TextBlock[] = [];
  private chars = 0;
  truncated = false;
  constructor(private readonly maxChars: number) {}

  /** false once the budget is spent: the caller stops reading. */
  add(block: TextBlock): boolean {
    if (this.truncated) return false;
    if (this.blocks.length >= MAX_BLOCKS) return this.stop();
    const length = lineOf(block).length + (this.blocks.length > 0 ? 1 : 0);
    if (this.chars + length > this.maxChars) {
      const room = this.maxChars - this.chars - (this.blocks.length > 0 ? 1 : 0);
      if (room > 0 && block.type !== "row") {
        this.blocks.push(block.type === "sheet" ? { type: "sheet", name: block.name.slice(0, room) } : { ...block, text: block.text.slice(0, room) });
      }
      return this.stop();
    }
    this.blocks.push(block);
    this.chars += length;
    return true;
  }

  get full(): boolean {
    return this.truncated;
  }

  private stop(): false {
    this.truncated = true;
    return false;
  }

  result(kind: string): ExtractedText {
    return { kind, text: this.blocks.map(lineOf).join("\n"), blocks: this.blocks, truncated: this.truncated };
  }
}
