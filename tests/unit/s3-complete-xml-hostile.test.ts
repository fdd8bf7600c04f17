import { describe, expect, it } from "vitest";
import { parseCompleteMultipartUpload } from "../../workers/lib/s3-xml";

/**
 * CompleteMultipartUpload bodies an attacker with his own upload can send (up to the 2 MiB the endpoint reads): each
 * must be judged in one pass, well under a second, and refused unless it is the document.
 */

const MAX_BODY = 2 * 1024 * 1024;
const PART = "<Part><PartNumber>1</PartNumber><ETag>a</ETag></Part>";

function fill(unit: string, wrap = (s: string) => `<CompleteMultipartUpload>${s}</CompleteMultipartUpload>`): string {
  return wrap(unit.repeat(Math.floor((MAX_BODY - 60) / unit.length)));
}

describe("hostile CompleteMultipartUpload bodies end quickly", () => {
  it.each([
    ["unclosed parts", fill("<Part><PartNumber>1</PartNumber><ETag>a</ETag><X>"), null],
    ["parts that never close, without a root end", fill("<Part>", (s) => `<CompleteMultipartUpload>${s}`), null],
    ["fields that never close", fill("<Part><PartNumber>1"), null],
    ["deep nesting", fill("<Part><PartNumber><a>"), null],
    ["an open root repeated", fill("<CompleteMultipartUpload>", (s) => s), null],
    ["comment openers", fill("<!--"), null],
    ["attributes without end", fill('<Part a="'), null],
    ["a valid body of ~40,000 parts", fill(PART), "parts"],
  ])("%s", (_what, body, expected) => {
    expect(body.length).toBeLessThanOrEqual(MAX_BODY);
    const started = performance.now();
    const parts = parseCompleteMultipartUpload(body);
    const elapsed = performance.now() - started;
    if (expected === null) expect(parts).toBeNull();
    else expect(parts?.length).toBeGreaterThan(30_000);
    expect(elapsed, `${Math.round(elapsed)} ms`).toBeLessThan(1500);
  });

  it("a DOCTYPE with entities (billion laughs) is refused, never expanded", () => {
    const body = `<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&b;</ETag></Part></CompleteMultipartUpload>`;
    expect(parseCompleteMultipartUpload(body)).toBeNull();
  });

  it("an external entity is refused", () => {
    const body = `<!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]><CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&x;</ETag></Part></CompleteMultipartUpload>`;
    expect(parseCompleteMultipartUpload(body)).toBeNull();
  });

  it("reads character references and CDATA in an etag, and refuses a second root or text after it", () => {
    expect(
      parseCompleteMultipartUpload("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&#34;a&#x62;&#34;</ETag></Part></CompleteMultipartUpload>"),
    ).toEqual([{ partNumber: 1, etag: "ab" }]);
    expect(
      parseCompleteMultipartUpload("<CompleteMultipartUpload><Part><PartNumber>2</PartNumber><ETag><![CDATA[c]]></ETag></Part></CompleteMultipartUpload>"),
    ).toEqual([{ partNumber: 2, etag: "c" }]);
    expect(parseCompleteMultipartUpload(`<CompleteMultipartUpload>${PART}</CompleteMultipartUpload><CompleteMultipartUpload/>`)).toBeNull();
    expect(parseCompleteMultipartUpload(`<CompleteMultipartUpload>${PART}</CompleteMultipartUpload>junk`)).toBeNull();
    expect(parseCompleteMultipartUpload("")).toBeNull();
  });
});

describe("generated bodies (fuzz)", () => {
  it("mutations of a valid body never throw and each ends in a few milliseconds", async () => {
    const fc = await import("fast-check");
    const valid = `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${[1, 2, 3]
      .map((n) => `<Part><PartNumber>${n}</PartNumber><ETag>&quot;e${n}&quot;</ETag><ChecksumCRC32>AA==</ChecksumCRC32></Part>`)
      .join("")}</CompleteMultipartUpload>`;
    const pieces = ["<", ">", "</", "/>", "<Part>", "</Part>", "<!--", "-->", "<![CDATA[", "]]>", "&", "&#", ";", '"', "<!DOCTYPE x>", "\u0000", "\uFFFF"];
    const mutation = fc.record({
      at: fc.nat({ max: valid.length }),
      cut: fc.nat({ max: 40 }),
      insert: fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 20 })),
      repeat: fc.integer({ min: 1, max: 2000 }),
    });
    const started = performance.now();
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
        let body = valid;
        for (const m of mutations) body = body.slice(0, m.at) + m.insert.repeat(m.repeat) + body.slice(m.at + m.cut);
        const t = performance.now();
        const parts = parseCompleteMultipartUpload(body);
        expect(parts === null || Array.isArray(parts)).toBe(true);
        expect(performance.now() - t).toBeLessThan(250);
      }),
      { numRuns: 400, seed: 37 },
    );
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
