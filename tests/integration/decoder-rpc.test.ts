import { env } from "cloudflare:workers";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { MAX_COMPRESSION_RATIO } from "../../workers/services/media/extract/limits";
import { DOCX_MIME } from "../fixtures/office-docs";
import { expectError } from "./factories";
import { fileUrl, hit, officeFile, wopiToken } from "./wopi-fixtures";

/**
 * Decision 032: the parses a request needs cross the DECODER service binding to the media Worker's DecoderEntrypoint
 * (here the Worker under test's own entrypoint, vitest.config.ts) and come back with the route's old answers.
 */

/** A DOCX whose document part inflates 16 MiB of spaces from a few KB: refused by its declared ratio (issue 25). */
function docxBomb(): Uint8Array<ArrayBuffer> {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${" ".repeat(16 * 1024 * 1024)}</w:body></w:document>`;
  return new Uint8Array(zipSync({ "word/document.xml": [new TextEncoder().encode(xml), { level: 9 }] }));
}

describe("parsing over the DECODER binding", () => {
  it("WOPI /text of an office bomb answers 413 with the extractor's Russian reason, as in the request before", async () => {
    const f = await officeFile({ name: "Бомба.docx", mime: DOCX_MIME, bytes: docxBomb() });
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId, "view", "browser");
    const body = await expectError(await hit(fileUrl(f.assetId, tok, "/text")), 413);
    expect(body.message).toBe(ru.parse.tooComplex(ru.parse.ratio("word/document.xml", MAX_COMPRESSION_RATIO)));
  });

  it("is a real RPC binding: a refusal crosses as a value with its status code and message", async () => {
    const answer = await env.DECODER.previewImage(new Uint8Array([1, 2, 3]), "image/png", null);
    expect(answer).toEqual({ ok: false, code: "BAD_REQUEST", message: ru.catalog.previewCorrupt("image/png") });
  });

  it("reads stored files itself: an object that is not there is a 404 refusal, not an exception", async () => {
    const answer = await env.DECODER.documentText({
      storageId: "0".repeat(32),
      storageKey: "nowhere/missing.docx",
      mimeType: DOCX_MIME,
      fileName: "missing.docx",
      maxBytes: 1024,
    });
    expect(answer).toEqual({ ok: false, code: "NOT_FOUND", message: ru.assets.contentMissing });
  });

  it("draws a waveform's PNG there and answers its size", async () => {
    const answer = await env.DECODER.waveformPng([0, 0.5, 1, 0.25], "thumb");
    expect(answer.ok).toBe(true);
    if (answer.ok) expect(answer.value).toMatchObject({ width: 320, height: 160 });
  });
});
