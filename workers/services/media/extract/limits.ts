/**
 * Every limit the parsers of uploaded files keep (decision 027, docs/security.md «Parser limits»), in one place with
 * the attack or accident each one stops. A file that crosses a limit is refused with a ParseLimitError (it is kept:
 * it is the user's data; only its processing ends as failed with the reason), never half-parsed in a loop.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

// ---- ZIP containers (DOCX, XLSX, PPTX, ODF) ------------------------------------------------------------------

/** Largest archive read whole for text: the central directory sits at the end, so the bytes are held in memory. */
export const MAX_ARCHIVE_BYTES = 64 * MiB;
/** Entries listed in a central directory. Office files have tens to a few thousand; 65,535 tiny entries are a CPU bomb. */
export const MAX_ZIP_ENTRIES = 10_000;
/** Bytes one entry may inflate to (the largest XML part we read): one 1 GiB `document.xml` must not fill memory. */
export const MAX_ENTRY_BYTES = 32 * MiB;
/** Bytes all entries of one file may inflate to together: 300 entries × 64 MiB (the «pptx bomb») stop here. */
export const MAX_TOTAL_INFLATED_BYTES = 96 * MiB;
/**
 * Inflated/compressed ratio of an entry, declared or reached. Text XML compresses 5–30×; deflate's ceiling is about
 * 1,032×, reached only by runs of one byte — a bomb. Checked once an entry passes RATIO_GRACE_BYTES, so tiny
 * entries of zeros (empty sheets) pass.
 */
export const MAX_COMPRESSION_RATIO = 100;
export const RATIO_GRACE_BYTES = 1 * MiB;
/**
 * Compressed bytes handed to the inflater at once: its output per push is at most ~1,032× this (16 MiB), so the
 * limits above are checked at least every 16 MiB of output, never after a whole bomb has been inflated. (Smaller
 * pushes cost fflate noticeably more per byte.)
 */
export const INFLATE_CHUNK_BYTES = 16 * KiB;
/**
 * Near a limit the pieces shrink to what the room left can take at deflate's worst ratio (DEFLATE_MAX_RATIO), down
 * to this: an entry declaring 4 KiB that is really a 1 GiB bomb stops after ~1 MiB of output, not 16 MiB.
 */
export const MIN_INFLATE_CHUNK_BYTES = 1 * KiB;
/** Deflate's ceiling: 258-byte matches coded in about 2 bits each. */
export const DEFLATE_MAX_RATIO = 1032;
/** Archives opened inside archives. We never open one (only XML parts are read); a nested ZIP is refused, not walked. */
export const MAX_ZIP_NESTING = 1;

// ---- XML ------------------------------------------------------------------------------------------------------

/** Characters of one XML part handed to the XML parser (the same as an entry: bytes ≈ characters). */
export const MAX_XML_CHARS = MAX_ENTRY_BYTES;
/**
 * Elements of one XML part. A 32 MiB `document.xml` of formatted runs holds some 500,000; millions of empty tags
 * are a CPU and memory bomb for whoever walks them.
 */
export const MAX_XML_ELEMENTS = 1_000_000;
/** Nesting of one XML part: office XML nests a few tens deep (tables in text boxes in tables); more is hostile. */
export const MAX_XML_DEPTH = 256;
/**
 * Characters of text kept from one XML part: several times what any purpose shows or indexes (MAX_VIEW_CHARS),
 * so nothing a reader sees is lost, while a part of pure text is not copied whole into the tree.
 */
export const MAX_XML_TEXT_CHARS = 4_000_000;
// A DOCTYPE is refused outright (xml.ts): office XML never declares one, and its entities are the «billion laughs»
// (entities expanding to entities) and external-entity (XXE) attacks. Only XML's five entities and numeric
// references are decoded.

// ---- Text output ---------------------------------------------------------------------------------------------

/** Characters of extracted text answered by WOPI `/text`; `blocks` are cut at the same point. */
export const MAX_VIEW_CHARS = 1_000_000;
/** Blocks (paragraphs, rows, sheet names) answered by WOPI `/text`. */
export const MAX_BLOCKS = 20_000;
/** Characters of a document kept for the search index and RAG passages: enough for passages, one row stays small. */
export const MAX_INDEX_CHARS = 200_000;
/** Characters of a document read for its text-card preview (decision 029): a page shows a few hundred at most. */
export const MAX_CARD_CHARS = 6_000;
/** Bytes read from the start of a plain-text file for its card (the rest is never decoded). */
export const MAX_CARD_PLAIN_BYTES = 64 * KiB;
/** Blocks of a document drawn on a card: wrapping and fitting never walk more than these. */
export const MAX_CARD_LINES = 200;
/** Largest JSON parsed for its string values (bigger ones are indexed as raw text). */
export const MAX_JSON_BYTES = 4 * MiB;
/** Nesting of JSON walked for values: deeper levels are skipped (a 1-million-deep `[[[…]]]` never recurses). */
export const MAX_JSON_DEPTH = 64;
/** A Markdown line longer than this is kept as it is: the emphasis patterns are not run over megabyte lines. */
export const MAX_MARKDOWN_LINE_CHARS = 10_000;

// ---- PDF (unpdf / PDF.js) ------------------------------------------------------------------------------------

/** Largest PDF handed to PDF.js for text. */
export const MAX_PDF_BYTES = 64 * MiB;
/** Pages read for text: a declared `/Count 100000000` does not make 10^8 page loads. */
export const MAX_PDF_PAGES = 300;
/** Wall time for a PDF's text (PDF.js yields between pages, so a reference loop or a huge page stops here). */
export const PDF_TIME_BUDGET_MS = 20_000;
/** Page count accepted from a page tree's `/Count`: a larger one is a lie, and the file is refused. */
export const MAX_PDF_DECLARED_PAGES = 100_000;
/** `/Type /Pages` dictionaries looked at for the page count (each read from a 8,000-character window). */
export const MAX_PDF_TREE_NODES = 10_000;
/**
 * Bytes one compressed (FlateDecode) stream of a PDF may inflate to. PDF.js inflates a content stream, font, CMap or
 * object stream whole into one growing buffer, so a 250 KiB stream of spaces would become 256 MiB in the isolate:
 * every such stream is inflated first by a counting pass (pdf-streams.ts, output discarded) and the file is refused
 * past this. Real content streams are kilobytes to a few MiB; image streams are not read for text and are skipped.
 */
export const MAX_PDF_STREAM_BYTES = 16 * MiB;
/** Bytes all counted streams of one PDF may inflate to together (bounds the counting pass to about a second). */
export const MAX_PDF_INFLATED_BYTES = 256 * MiB;
/** `stream` keywords looked at in one PDF: a file of a million empty streams is refused, not walked. */
export const MAX_PDF_STREAMS = 100_000;
/** Bytes before a `stream` keyword read for its dictionary (filters, type, object number). */
export const PDF_DICT_WINDOW_BYTES = 4 * KiB;

// ---- Images --------------------------------------------------------------------------------------------------

/**
 * Pixels an image header may declare before anything is decoded (PNG IHDR, JPEG SOF, WebP, GIF screen): a 60,000 ×
 * 60,000 header would ask the decoder for 14 GB. Decoding for previews has its own lower cap (imaging's
 * MAX_DECODE_PIXELS, 12 MP); this one refuses to even read on.
 */
export const MAX_IMAGE_PIXELS = 268_435_456; // 16,384 × 16,384
/**
 * Pixels of a preview a client uploads (thumbnails and video posters made in the browser): a preview is shown in
 * every grid, so a header claiming more would make each viewer's browser allocate gigabytes. 413 at once.
 */
export const MAX_PREVIEW_UPLOAD_PIXELS = 16_777_216; // 4,096 × 4,096
/** Frames of an animated GIF counted; past this the file is refused (10,000 frames of 1 px is a decoder bomb). */
export const MAX_ANIMATION_FRAMES = 2_000;

// ---- EXIF / XMP (exifr) ---------------------------------------------------------------------------------------

/**
 * Bytes of a file handed to exifr: EXIF sits in the first segments; TIFF IFDs past this are not followed. exifr
 * reads a fixed set of IFDs (IFD0, EXIF, GPS, interop, IFD1) and never walks a chain, so IFDs that point at each
 * other in a loop are read once each; IFD1's thumbnail is not read.
 */
export const MAX_EXIF_BYTES = 4 * MiB;
/** Wall time for exifr on one file. */
export const EXIF_TIME_BUDGET_MS = 5_000;

// ---- ISO-BMFF (MP4, MOV, M4A) ---------------------------------------------------------------------------------

/** Largest `moov` box read (bytes); bigger indexes are not read. */
export const MAX_MOOV_BYTES = 32 * MiB;
/** Top-level boxes walked looking for `moov` (each is a range read). */
export const MAX_TOP_LEVEL_BOXES = 64;
/** Nesting of boxes inside `moov`: real files nest 6–8 deep; a box containing itself 10,000 times is refused. */
export const MAX_BOX_DEPTH = 16;
/** Boxes visited inside `moov` in all: a `moov` of 100,000 empty boxes is refused (real ones hold tens to a few hundred). */
export const MAX_BOXES = 2_000;

// ---- SVG ------------------------------------------------------------------------------------------------------

/** Largest SVG read for its size (width, height, viewBox). */
export const MAX_SVG_BYTES = 4 * MiB;
/** Element nesting of an SVG: deeper is refused (renderers and DOM parsers recurse on it). */
export const MAX_SVG_DEPTH = 256;
/** Attributes of one SVG element, counted as the parser reads them (300,000 on one tag cost the parser seconds). */
export const MAX_SVG_ATTRIBUTES = 1_000;
/**
 * What the Worker's SVG rasteriser (resvg, one synchronous wasm call that cannot be stopped) draws; past any of these
 * the SVG is left to the viewing browser. Measured at the 1280 px preview in resvg-wasm: a shape covering the canvas
 * costs 4.3 ms (10,000 of them 43 s); a group with opacity, a mask or a clip path 85–200 ms each (a layer of the
 * canvas), a finely dashed stroke 200–300 ms; a zigzag polygon of 10,000 points 0.9 s, of 100,000 points 22 s.
 * A style sheet that sets one of those effects counts it once per shape.
 */
export const MAX_SVG_RASTER_SHAPES = 1_000;
export const MAX_SVG_RASTER_EFFECTS = 8;
/** Numbers in the whole text (coordinates of paths and points, sizes): the geometry resvg flattens and fills. */
export const MAX_SVG_RASTER_NUMBERS = 20_000;
/** Elements handed to resvg (groups, gradient stops, shapes…): the tree rebuilt for it stays small. */
export const MAX_SVG_RASTER_ELEMENTS = 10_000;
/**
 * External references of an SVG are never fetched by the server (no parser here loads `href`s); they are counted
 * and reported, and the file is served with a CSP that forbids loading them (docs/security.md).
 */
export const SVG_FETCHES_EXTERNAL = false;

// ---- Preview makers in the Worker (decision 029) ---------------------------------------------------------------

/**
 * Pixels a photo may have for its preview. Past imaging's MAX_DECODE_PIXELS (12 MP, decoded whole by mozjpeg) a
 * JPEG is decoded scaled (1/2, 1/4 or 1/8 per side, from its DCT coefficients) and a TIFF strip by strip into a
 * downsampled buffer, so memory follows the preview, not the photo; this caps the work (every coefficient is still
 * Huffman-decoded). A 300 MP image or a header declaring more fails its preview with the reason.
 */
export const MAX_PREVIEW_SOURCE_PIXELS = 200_000_000;
/** Pixels a scaled decode may produce (then resized to the preview sizes): ~6 MP, about 24 MB of RGBA. */
export const MAX_SCALED_DECODE_PIXELS = 6_500_000;
/** Largest photo (bytes) read for a preview: read in pieces, never held whole. */
export const MAX_PREVIEW_SOURCE_BYTES = 512 * MiB;
/** Bytes of compressed image data read ahead at once by the streaming decoders (range reads of this size). */
export const PREVIEW_READ_CHUNK_BYTES = 4 * MiB;
/** Bytes one TIFF strip or tile may decompress to: a strip declaring 4 GiB of LZW output stops here. */
export const MAX_TIFF_STRIP_BYTES = 64 * MiB;
/** Strips and tiles of a TIFF page read; IFDs of a TIFF/RAW walked (a chain of IFDs in a loop stops here). */
export const MAX_TIFF_STRIPS = 100_000;
export const MAX_TIFF_IFDS = 64;
/** Tag values read from all IFDs of one TIFF together (a page of MAX_TIFF_STRIPS strips needs twice that). */
export const MAX_TIFF_VALUES = 300_000;
/**
 * Storage reads one TIFF/RAW decode may make (IFDs, tag values, embedded previews and strips). Strips are read
 * through merged runs of up to TIFF_RUN_BYTES (neighbouring strips closer than TIFF_RUN_GAP_BYTES share a read, a
 * strip repeated at one offset is read once), so a 200 MP page needs a few hundred; 100,000 strips scattered to
 * defeat the merging stop here instead of making 100,000 R2 operations.
 */
export const MAX_TIFF_READS = 1_000;
export const TIFF_RUN_BYTES = 4 * MiB;
export const TIFF_RUN_GAP_BYTES = 64 * 1024;
/**
 * Scans (SOS segments) a JPEG may have. Each scan walks every block of the image again, even with no data behind it
 * (missing bits read as zeros, as in libjpeg): 1,000 copies of a 14-byte scan header made a 24 MP photo cost 80 s
 * in the scaled decoder. Encoders write 1–4 scans (baseline) or about 10 (progressive, mozjpeg and jpegtran).
 */
export const MAX_JPEG_SCANS = 100;
/** Bytes searched for an embedded JPEG preview of a camera RAW (CR3) or HEIC: previews sit near the start. */
export const MAX_EMBEDDED_SCAN_BYTES = 16 * MiB;

// ---- Audio waveforms (WAV) -----------------------------------------------------------------------------------

/** Bytes of a WAV's header searched for its `fmt ` and `data` chunks. */
export const MAX_WAV_HEADER_BYTES = 64 * KiB;
/**
 * Sample bytes read for a WAV's peaks. Up to this the whole data chunk is streamed (about 25 minutes of CD audio);
 * past it the peaks come from WAV_SAMPLE_WINDOWS evenly spaced windows of WAV_SAMPLE_WINDOW_BYTES (a 10-hour file
 * reads 40 MiB in 40 range reads, not 6 GB).
 */
export const MAX_WAV_STREAM_BYTES = 256 * MiB;
export const WAV_SAMPLE_WINDOWS = 40;
export const WAV_SAMPLE_WINDOW_BYTES = 1 * MiB;
