import { describe, expect, it } from "vitest";
import { AppError } from "../../workers/lib/errors";
import { S3Error, errorXml, normalizeEtag, parseCompleteMultipartUpload, quoteEtag, s3CodeOf, xmlDocument } from "../../workers/lib/s3-xml";

describe("parseCompleteMultipartUpload", () => {
  it("reads Uppy's body (quoted etags, no declaration) and S3's (namespace, declaration, escaped quotes, checksums)", () => {
    expect(
      parseCompleteMultipartUpload(
        '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"a1"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>b2</ETag></Part></CompleteMultipartUpload>',
      ),
    ).toEqual([
      { partNumber: 1, etag: "a1" },
      { partNumber: 2, etag: "b2" },
    ]);
    const s3 = `<?xml version="1.0" encoding="UTF-8"?>
<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Part>
    <PartNumber>3</PartNumber>
    <ETag>&quot;c3&quot;</ETag>
    <ChecksumCRC32>AAAAAA==</ChecksumCRC32>
  </Part>
</CompleteMultipartUpload>`;
    expect(parseCompleteMultipartUpload(s3)).toEqual([{ partNumber: 3, etag: "c3" }]);
    expect(parseCompleteMultipartUpload("<CompleteMultipartUpload></CompleteMultipartUpload>")).toEqual([]);
  });

  it("keeps document order and repeats (the caller judges them)", () => {
    const body = `<CompleteMultipartUpload>${[2, 1, 1]
      .map((n) => `<Part><PartNumber>${n}</PartNumber><ETag>e${n}</ETag></Part>`)
      .join("")}</CompleteMultipartUpload>`;
    expect(parseCompleteMultipartUpload(body)?.map((p) => p.partNumber)).toEqual([2, 1, 1]);
  });

  it.each([
    ["another root", "<Complete><Part><PartNumber>1</PartNumber><ETag>a</ETag></Part></Complete>"],
    ["text outside parts", "<CompleteMultipartUpload>junk<Part><PartNumber>1</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>"],
    [
      "a part number that is not a number",
      "<CompleteMultipartUpload><Part><PartNumber>one</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>",
    ],
    ["part number 0", "<CompleteMultipartUpload><Part><PartNumber>0</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>"],
    ["a missing etag", "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>"],
    [
      "a repeated field",
      "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><PartNumber>2</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>",
    ],
    ["text inside a part", "<CompleteMultipartUpload><Part>x<PartNumber>1</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>"],
    ["not XML", "{}"],
  ])("refuses %s", (_what, body) => {
    expect(parseCompleteMultipartUpload(body)).toBeNull();
  });
});

describe("XML answers", () => {
  it("builds documents Uppy's parser reads: escaped text, repeated elements, the S3 namespace", () => {
    const xml = xmlDocument("ListPartsResult", {
      Key: "a&b",
      Part: [
        { PartNumber: 1, ETag: quoteEtag("x") },
        { PartNumber: 2, ETag: quoteEtag("y") },
      ],
      IsTruncated: false,
    });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Key>a&amp;b</Key><Part><PartNumber>1</PartNumber><ETag>&quot;x&quot;</ETag></Part><Part><PartNumber>2</PartNumber><ETag>&quot;y&quot;</ETag></Part><IsTruncated>false</IsTruncated></ListPartsResult>',
    );
    expect(errorXml("AccessDenied", "Нет <доступа>", "/api/s3/x", "r1")).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Нет &lt;доступа&gt;</Message><Resource>/api/s3/x</Resource><RequestId>r1</RequestId></Error>',
    );
  });

  it("normalises etags however they come back", () => {
    for (const etag of ['"abc"', "abc", "&quot;abc&quot;", " &#34;abc&#34; "]) expect(normalizeEtag(etag)).toBe("abc");
  });

  it("maps errors to S3 codes and statuses", () => {
    expect(new S3Error("InvalidPartOrder", "m").status).toBe(400);
    expect(new S3Error("NoSuchUpload", "m").status).toBe(404);
    expect(new S3Error("MissingContentLength", "m").status).toBe(411);
    expect(s3CodeOf(new S3Error("EntityTooSmall", "m"))).toBe("EntityTooSmall");
    expect(s3CodeOf(new AppError("FORBIDDEN", "m"))).toBe("AccessDenied");
    expect(s3CodeOf(new AppError("NOT_FOUND", "m"))).toBe("NoSuchUpload");
    expect(s3CodeOf(new AppError("CONFLICT", "m"))).toBe("OperationAborted");
    expect(s3CodeOf(new AppError("LENGTH_REQUIRED", "m"))).toBe("MissingContentLength");
    expect(s3CodeOf(new AppError("SERVICE_UNAVAILABLE", "m"))).toBe("ServiceUnavailable");
  });
});
