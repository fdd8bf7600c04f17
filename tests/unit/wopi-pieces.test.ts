import { describe, expect, it } from "vitest";
import { signWopiToken, verifyWopiToken } from "../../workers/lib/wopi-token";
import { actionUrl, findAction, parseDiscovery } from "../../workers/services/wopi/discovery";
import { EPOCH_TICKS, proofBytes, ticksOf } from "../../workers/services/wopi/proof";
import { decodeUtf7, encodeUtf7 } from "../../workers/services/wopi/utf7";
import { extractDocument as extractText, viewKind as textKindOf } from "../../workers/services/media/extract/extract";
import { DOCX_MIME, ODT_MIME, XLSX_MIME, makeDocx, makeOdt, makeXlsx, makeZip } from "../fixtures/office-docs";

const SECRET = "unit-test-secret-0123456789-0123456789";
const ASSET = "0".repeat(31) + "a";

describe("WOPI access tokens", () => {
  it("round-trips the claims and refuses tampering, expiry and another key", async () => {
    const exp = Date.now() + 60_000;
    const sid = "0".repeat(31) + "b";
    const token = await signWopiToken(SECRET, { userId: "u1", assetId: ASSET, right: "edit", client: "editor", exp, via: "session", sid });
    expect(await verifyWopiToken(SECRET, token)).toEqual({ userId: "u1", assetId: ASSET, right: "edit", client: "editor", exp, via: "session", sid });
    const [payload, sig] = token.split(".");
    const forged = btoa(JSON.stringify({ u: "u1", a: ASSET, r: "edit", k: "editor", exp: exp + 1 })).replace(/=+$/, "");
    expect(await verifyWopiToken(SECRET, `${forged}.${sig}`)).toBeNull();
    expect(await verifyWopiToken(SECRET, `${payload}.${sig}x`)).toBeNull();
    expect(await verifyWopiToken(`${SECRET}!`, token)).toBeNull();
    expect(await verifyWopiToken(SECRET, token, exp)).toBeNull();
    expect(await verifyWopiToken(SECRET, "not-a-token")).toBeNull();
  });

  it("refuses a validly signed token that names no credential, or a malformed one", async () => {
    const exp = Date.now() + 60_000;
    const bare = { userId: "u1", assetId: ASSET, right: "edit" as const, client: "editor" as const, exp };
    expect(await verifyWopiToken(SECRET, await signWopiToken(SECRET, { ...bare, via: "session", sid: "" }))).toBeNull();
    expect(await verifyWopiToken(SECRET, await signWopiToken(SECRET, { ...bare, via: "other" as "session", sid: ASSET }))).toBeNull();
    expect(await verifyWopiToken(SECRET, await signWopiToken(SECRET, { ...bare, via: "robot", sid: ASSET }))).toMatchObject({ via: "robot", sid: ASSET });
  });
});

describe("UTF-7 file names", () => {
  it("decodes and encodes what editors send", () => {
    expect(decodeUtf7("Hi Mom -+Jjo--!")).toBe("Hi Mom -\u263a-!");
    expect(decodeUtf7("+BB4EQgRHBDUEQg-.docx")).toBe("Отчет.docx");
    expect(decodeUtf7("a+-b")).toBe("a+b");
    for (const s of ["Отчёт за 2026 (копия).docx", "plain name.odt", "1+1=2", "日本語 ✓"]) expect(decodeUtf7(encodeUtf7(s))).toBe(s);
  });
});

const DISCOVERY = `<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery>
  <net-zone name="internal-http">
    <app name="writer"><action name="edit" ext="docx" urlsrc="http://internal/edit?"/></app>
  </net-zone>
  <net-zone name="external-http">
    <app name="writer" favIconUrl="http://cool/writer.ico">
      <action name="view" ext="odt" urlsrc="http://cool/browser/dist/cool.html?"/>
      <action name="edit" ext="docx" urlsrc="http://cool/browser/dist/cool.html?&lt;ui=UI_LLCC&amp;&gt;&lt;foo=BAR&amp;&gt;"/>
    </app>
    <app name="application/vnd.oasis.opendocument.text"><action name="edit" ext="" urlsrc="http://cool/mime.html?"/></app>
  </net-zone>
  <proof-key oldvalue="x" oldmodulus="b2xk" oldexponent="AQAB" value="y" modulus="bmV3" exponent="AQAB"/>
</wopi-discovery>`;

describe("discovery", () => {
  it("reads actions (external zone first), placeholders and proof keys", () => {
    const d = parseDiscovery(DISCOVERY);
    expect(d.proofKeys).toEqual({ current: { modulus: "bmV3", exponent: "AQAB" }, old: { modulus: "b2xk", exponent: "AQAB" } });
    const edit = findAction(d, "DOCX", DOCX_MIME, "edit");
    expect(edit?.urlsrc).toBe("http://cool/browser/dist/cool.html?<ui=UI_LLCC&><foo=BAR&>");
    expect(actionUrl(edit!.urlsrc, "https://mam.test/api/wopi/files/abc")).toBe(
      "http://cool/browser/dist/cool.html?ui=ru-RU&WOPISrc=https%3A%2F%2Fmam.test%2Fapi%2Fwopi%2Ffiles%2Fabc",
    );
    // view of a type listed only for view; edit falls to the per-MIME app; unknown types have none
    expect(findAction(d, "odt", ODT_MIME, "view")?.urlsrc).toBe("http://cool/browser/dist/cool.html?");
    expect(findAction(d, "odt", ODT_MIME, "edit")?.urlsrc).toBe("http://cool/mime.html?");
    expect(findAction(d, "exe", "application/x-msdownload", "view")).toBeNull();
  });
});

describe("proof bytes", () => {
  it("are the length-prefixed token, upper-case URL and big-endian ticks", () => {
    const bytes = proofBytes("tok", "https://h/a?b=c", ticksOf(0));
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(0)).toBe(3);
    expect(new TextDecoder().decode(bytes.subarray(4, 7))).toBe("tok");
    expect(view.getUint32(7)).toBe(15);
    expect(new TextDecoder().decode(bytes.subarray(11, 26))).toBe("HTTPS://H/A?B=C");
    expect(view.getUint32(26)).toBe(8);
    expect(view.getBigInt64(30)).toBe(EPOCH_TICKS);
  });
});

describe("text extraction", () => {
  it("reads DOCX headings and paragraphs", async () => {
    const r = await extractText(makeDocx("Заголовок", ["Первый абзац & ещё", "Второй"]), DOCX_MIME, "a.docx");
    expect(r.kind).toBe("docx");
    expect(r.blocks).toEqual([
      { type: "heading", text: "Заголовок" },
      { type: "paragraph", text: "Первый абзац & ещё" },
      { type: "paragraph", text: "Второй" },
    ]);
    expect(r.text).toBe("Заголовок\nПервый абзац & ещё\nВторой");
  });

  it("reads XLSX sheets with shared strings and numbers in their columns", async () => {
    const r = await extractText(makeXlsx("Бюджет", [["Статья", "Сумма"], ["Свет", 1200]]), XLSX_MIME, "b.xlsx");
    expect(r.blocks).toEqual([
      { type: "sheet", name: "Бюджет" },
      { type: "row", cells: ["Статья", "Сумма"] },
      { type: "row", cells: ["Свет", "1200"] },
    ]);
  });

  it("reads ODT, plain text by type or extension, and refuses what it cannot read", async () => {
    const odt = await extractText(makeOdt("Глава", ["Текст"]), ODT_MIME, "c.odt");
    expect(odt.blocks).toEqual([
      { type: "heading", text: "Глава" },
      { type: "paragraph", text: "Текст" },
    ]);
    const md = await extractText(new TextEncoder().encode("\uFEFF# Заметка\nстрока"), "application/octet-stream", "n.md");
    expect(md).toMatchObject({ kind: "plain", text: "# Заметка\nстрока" });
    expect(textKindOf("application/json", "x")).toBe("plain");
    expect((await extractText(new Uint8Array([1, 2, 3]), "image/png", "p.png")).kind).toBeNull();
    expect((await extractText(makeZip([{ name: "x.txt", text: "x" }]), DOCX_MIME, "broken.docx")).kind).toBeNull();
    await expect(extractText(new Uint8Array([0x50, 0x4b]), DOCX_MIME, "short.docx")).rejects.toThrow(/нет каталога архива/);
  });
});
