import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanFileName, contentDisposition, encodeRfc8187 } from "../../workers/lib/content-disposition";
import { contentRange, ifNoneMatch, ifRangeAllows, parseRange, unsatisfiedRange } from "../../workers/lib/http-range";

/** Decodes a `filename*=UTF-8''…` value the way browsers do. */
function extendedName(header: string): string | undefined {
  const m = /filename\*=UTF-8''([^;]*)/.exec(header);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** The quoted `filename="…"` value with its escapes undone. */
function quotedName(header: string): string {
  const m = /filename="((?:[^"\\]|\\.)*)"/.exec(header);
  if (!m) throw new Error(`no filename in ${header}`);
  return m[1].replace(/\\(.)/g, "$1");
}

/** Parameter names of a disposition header, read with the RFC 6266 grammar (token or quoted-string values). */
function parameterNames(header: string): string[] {
  const names: string[] = [];
  const param = /^;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=("(?:[^"\\]|\\.)*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*/;
  let rest = header.replace(/^(attachment|inline)\s*/, "");
  while (rest) {
    const m = param.exec(rest);
    if (!m) throw new Error(`unparsable header rest: ${rest}`);
    names.push(m[1]);
    rest = rest.slice(m[0].length);
  }
  return names;
}

describe("parseRange", () => {
  const size = 1000;

  it("answers none without a header", () => {
    expect(parseRange(null, size)).toEqual({ kind: "none" });
    expect(parseRange(undefined, size)).toEqual({ kind: "none" });
    expect(parseRange("  ", size)).toEqual({ kind: "none" });
  });

  it("reads a closed range, the first bytes", () => {
    expect(parseRange("bytes=0-99", size)).toEqual({ kind: "range", offset: 0, length: 100, end: 99 });
    expect(parseRange("bytes=0-0", size)).toEqual({ kind: "range", offset: 0, length: 1, end: 0 });
    expect(parseRange("Bytes = 10 - 19", size)).toEqual({ kind: "range", offset: 10, length: 10, end: 19 });
  });

  it("clamps a range running past the end", () => {
    expect(parseRange("bytes=900-5000", size)).toEqual({ kind: "range", offset: 900, length: 100, end: 999 });
    expect(parseRange("bytes=0-99999999999999999999999", size)).toEqual({ kind: "range", offset: 0, length: 1000, end: 999 });
  });

  it("reads an open-ended range", () => {
    expect(parseRange("bytes=990-", size)).toEqual({ kind: "range", offset: 990, length: 10, end: 999 });
    expect(parseRange("bytes=999-", size)).toEqual({ kind: "range", offset: 999, length: 1, end: 999 });
  });

  it("reads a suffix range, whole object when longer than it", () => {
    expect(parseRange("bytes=-100", size)).toEqual({ kind: "range", offset: 900, length: 100, end: 999 });
    expect(parseRange("bytes=-5000", size)).toEqual({ kind: "range", offset: 0, length: 1000, end: 999 });
  });

  it.each(["bytes=1000-", "bytes=1000-2000", "bytes=-0", "bytes=99999999999999999999-"])("refuses unsatisfiable %s", (h) => {
    expect(parseRange(h, size)).toEqual({ kind: "unsatisfiable" });
  });

  it.each(["bytes=", "bytes=-", "bytes=5-1", "bytes=a-b", "items=0-1", "0-1", "bytes=0-1,x", "bytes=1.5-2", "bytes=--1", "bytes=0-1-2"])(
    "treats malformed %s as unsatisfiable",
    (h) => {
      expect(parseRange(h, size)).toEqual({ kind: "unsatisfiable" });
    },
  );

  it("answers the whole object for several ranges", () => {
    expect(parseRange("bytes=0-1, 5-6", size)).toEqual({ kind: "none" });
  });

  it("never satisfies a range of an empty object", () => {
    expect(parseRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-1", 0)).toEqual({ kind: "unsatisfiable" });
  });

  it("always answers a range inside the object (property)", () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.nat(1e9), fc.integer({ min: 1, max: 1e9 }), (a, b, n) => {
        for (const h of [`bytes=${a}-${b}`, `bytes=${a}-`, `bytes=-${b}`]) {
          const r = parseRange(h, n);
          if (r.kind === "range") {
            expect(r.offset).toBeGreaterThanOrEqual(0);
            expect(r.length).toBeGreaterThan(0);
            expect(r.end).toBe(r.offset + r.length - 1);
            expect(r.end).toBeLessThan(n);
          }
        }
      }),
    );
  });

  it("formats Content-Range", () => {
    expect(contentRange(0, 99, 1000)).toBe("bytes 0-99/1000");
    expect(unsatisfiedRange(1000)).toBe("bytes */1000");
  });
});

describe("conditional requests", () => {
  const etag = '"abc"';

  it("matches If-None-Match weakly, in lists and with *", () => {
    expect(ifNoneMatch('"abc"', etag)).toBe(true);
    expect(ifNoneMatch('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatch('"x", "abc"', etag)).toBe(true);
    expect(ifNoneMatch("*", etag)).toBe(true);
    expect(ifNoneMatch('"x"', etag)).toBe(false);
    expect(ifNoneMatch(null, etag)).toBe(false);
  });

  it("honours a range under If-Range only for the current strong tag or date", () => {
    const modified = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(ifRangeAllows(null, etag, modified)).toBe(true);
    expect(ifRangeAllows('"abc"', etag, modified)).toBe(true);
    expect(ifRangeAllows('W/"abc"', etag, modified)).toBe(false);
    expect(ifRangeAllows('"old"', etag, modified)).toBe(false);
    expect(ifRangeAllows(new Date(modified).toUTCString(), etag, modified)).toBe(true);
    expect(ifRangeAllows(new Date(modified - 60_000).toUTCString(), etag, modified)).toBe(false);
    expect(ifRangeAllows("nonsense", etag, modified)).toBe(false);
  });
});

describe("contentDisposition", () => {
  it("gives a plain ASCII name as is", () => {
    expect(contentDisposition("report.pdf")).toBe('attachment; filename="report.pdf"');
    expect(contentDisposition("clip.mp4", "inline")).toBe('inline; filename="clip.mp4"');
  });

  it("escapes quotes and backslashes in the quoted fallback", () => {
    const header = contentDisposition('say "hi" \\ bye.txt');
    // Backslashes are path separators on some systems: they become '_' before quoting.
    expect(quotedName(header)).toBe('say "hi" _ bye.txt');
    expect(header).toContain('filename="say \\"hi\\" _ bye.txt"');
  });

  it("adds filename* for Cyrillic, emoji and quotes together", () => {
    const name = 'Отчёт "финал" 🎬 (1).mp4';
    const header = contentDisposition(name);
    expect(header.startsWith("attachment; filename=")).toBe(true);
    expect(extendedName(header)).toBe(name);
    expect(quotedName(header)).toMatch(/^[\x20-\x7e]+$/);
    expect(quotedName(header).endsWith(' "_____" _ (1).mp4')).toBe(true);
    expect(header).toContain("%F0%9F%8E%AC");
    expect(header).toContain("%28");
    expect(/filename\*=UTF-8''([^;]*)/.exec(header)?.[1]).not.toMatch(/['()*" ]/);
  });

  it("cannot be used to inject headers or parameters", () => {
    const header = contentDisposition('evil"; filename="x.exe\r\nSet-Cookie: a=b');
    expect(header).not.toMatch(/[\r\n]/);
    expect(quotedName(header)).toBe('evil"; filename="x.exeSet-Cookie: a=b');
    // Parsed by the header grammar, the name stays inside one quoted filename parameter.
    expect(parameterNames(header)).toEqual(["filename"]);
  });

  it("survives lone surrogates and empty names", () => {
    expect(extendedName(contentDisposition("a\uD800b"))).toBe("a\uFFFDb");
    expect(contentDisposition("")).toBe('attachment; filename="download"');
    expect(contentDisposition("\u0000\u0001")).toBe('attachment; filename="download"');
    expect(cleanFileName("..")).toBe("download");
  });

  it("encodes percent signs so they are not read as escapes", () => {
    const header = contentDisposition("100%.txt");
    expect(quotedName(header)).toBe("100_.txt");
    expect(extendedName(header)).toBe("100%.txt");
  });

  it("encodes RFC 8187 attr-chars only", () => {
    expect(encodeRfc8187("a b'()*!~")).toBe("a%20b%27%28%29%2A!~");
  });

  it("round-trips any string through filename* and stays one header line (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (name) => {
        const header = contentDisposition(name);
        expect(header).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(header).toMatch(/^[\x20-\x7e]+$/);
        const offered = extendedName(header) ?? quotedName(header);
        expect(offered).toBe(cleanFileName(name));
        expect(parameterNames(header).slice(0, 1)).toEqual(["filename"]);
      }),
    );
  });
});
