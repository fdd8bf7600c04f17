import { ru } from "../../../shared/i18n/ru";
import { limits } from "../media/decode";
import type { ByteSource } from "./byte-source";
import { PreviewUnavailable } from "./preview-unavailable";

/**
 * A ByteSource that counts its reads and refuses past `max` (PreviewUnavailable with the reason): a file cannot make
 * one decode cost more storage operations than the cap, whatever its tables declare.
 */
export function readCapped(source: ByteSource, max = limits.MAX_TIFF_READS): ByteSource & { readonly reads: number } {
  let reads = 0;
  return {
    size: source.size,
    get reads() {
      return reads;
    },
    read(offset, length) {
      if (++reads > max) throw new PreviewUnavailable(ru.makers.tiffReads(max));
      return source.read(offset, length);
    },
  };
}

interface Run {
  start: number;
  end: number;
}

/**
 * Reads a page's strips (byte ranges the file's tables declare, in any order, overlapping or repeated) through merged
 * runs: the ranges sorted by offset are merged while a run stays within TIFF_RUN_BYTES and the gap between them under
 * TIFF_RUN_GAP_BYTES; a strip longer than a run is a run of its own. One run is held at a time, so strips read in
 * either direction through the file cost one read per run, and 100,000 strips at one offset cost one read.
 */
export class StripReader {
  private readonly runs: Run[] = [];
  private readonly runOf: Int32Array;
  private held = -1;
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly source: ByteSource,
    private readonly offsets: readonly number[],
    private readonly lengths: readonly number[],
  ) {
    const n = lengths.length;
    this.runOf = new Int32Array(n);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => offsets[a] - offsets[b] || lengths[b] - lengths[a]);
    for (const i of order) {
      const start = offsets[i];
      const end = start + lengths[i];
      const last = this.runs[this.runs.length - 1];
      if (last && start <= last.end + limits.TIFF_RUN_GAP_BYTES && Math.max(last.end, end) - last.start <= limits.TIFF_RUN_BYTES) {
        last.end = Math.max(last.end, end);
      } else if (last && start >= last.start && end <= last.end) {
        // Inside a run already (a long strip's run holds it): no run of its own.
      } else {
        this.runs.push({ start, end });
      }
      this.runOf[i] = this.runs.length - 1;
    }
  }

  /** Strip `i`'s bytes (fewer at the end of the file). */
  async strip(i: number): Promise<Uint8Array> {
    const r = this.runOf[i];
    if (r !== this.held) {
      const run = this.runs[r];
      this.bytes = await this.source.read(run.start, run.end - run.start);
      this.held = r;
    }
    const from = this.offsets[i] - this.runs[r].start;
    return this.bytes.subarray(from, from + this.lengths[i]);
  }
}
