import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_CLASS_ID } from "../../workers/services/metadata/pure";
import { rows } from "./asset-fixtures";
import { call, signIn, signInAdmin } from "./factories";
import { ok, type Template, type Value } from "./metadata-fixtures";
import { fixture } from "./processing-fixtures";
import { endedTaskOf, uploadFile } from "./task-fixtures";

const DEFAULT_NAMES = ["Заголовок", "Описание", "Ключевые слова", "Автор", "Авторские права", "Правообладатель", "Условия использования", "Дата съёмки", "Место"];

const enc = new TextEncoder();

/** A JPEG marker segment: FF, marker, big-endian length (including itself), body. */
function segment(marker: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  out.set([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff]);
  out.set(body, 4);
  return out;
}

/** An IPTC-IIM dataset of record 2. */
function iim(tag: number, text: string): number[] {
  const v = enc.encode(text);
  return [0x1c, 2, tag, v.length >> 8, v.length & 0xff, ...v];
}

/** The test photo with an XMP packet (APP1) and IPTC-IIM (APP13, Photoshop 8BIM 0x0404) spliced in after SOI. */
function photoWithEmbeddedMetadata(): Uint8Array<ArrayBuffer> {
  const xmp = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Закат над морем</rdf:li></rdf:Alt></dc:title><dc:description><rdf:Alt><rdf:li xml:lang="x-default">Описание, с запятой</rdf:li></rdf:Alt></dc:description><dc:creator><rdf:Seq><rdf:li>Иван Петров</rdf:li></rdf:Seq></dc:creator><dc:rights><rdf:Alt><rdf:li xml:lang="x-default">© 2026 Студия</rdf:li></rdf:Alt></dc:rights><dc:subject><rdf:Bag><rdf:li>море</rdf:li><rdf:li>закат</rdf:li></rdf:Bag></dc:subject><photoshop:DateCreated>2026-06-01</photoshop:DateCreated><xmpRights:UsageTerms><rdf:Alt><rdf:li xml:lang="x-default">Только для редакции</rdf:li></rdf:Alt></xmpRights:UsageTerms></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
  const app1 = segment(0xe1, new Uint8Array([...enc.encode("http://ns.adobe.com/xap/1.0/\0"), ...enc.encode(xmp)]));
  // IPTC only: the credit line (XMP has none here, so the IPTC twin fills «Правообладатель») and a title XMP outranks.
  const records = new Uint8Array([...iim(5, "IPTC title"), ...iim(110, "Studio Credit")]);
  const resource = [...enc.encode("8BIM"), 0x04, 0x04, 0, 0, 0, 0, records.length >> 8, records.length & 0xff, ...records];
  if (records.length % 2) resource.push(0);
  const app13 = segment(0xed, new Uint8Array([...enc.encode("Photoshop 3.0\0"), ...resource]));
  const jpeg = fixture("tiny");
  const out = new Uint8Array(jpeg.length + app1.length + app13.length);
  out.set(jpeg.subarray(0, 2));
  out.set(app1, 2);
  out.set(app13, 2 + app1.length);
  out.set(jpeg.subarray(2), 2 + app1.length + app13.length);
  return out;
}

async function templatesByName(bearer: string): Promise<Map<string, Template>> {
  const list = await ok<Template[]>("/api/fields/templates?take=500", bearer);
  return new Map(list.map((t) => [t.field_def_name, t]));
}

describe("default metadata set", () => {
  it("exists on a fresh install: nine fields mapped to XMP keys, in the default class", async () => {
    const user = await signIn();
    const byName = await templatesByName(user.bearer);
    for (const name of DEFAULT_NAMES) expect(byName.get(name)?.field_def_extsys_key, name).toMatch(/^XMP-/);
    expect(byName.get("Ключевые слова")?.field_setup).toMatchObject({ multiple: true });
    expect(byName.get("Дата съёмки")?.field_type).toBe("date");
    const classes = await ok<{ id: string; name: string; def_fields: string[] }[]>("/api/asset/class/list?take=500", user.bearer);
    const cls = classes.find((c) => c.id === DEFAULT_CLASS_ID);
    expect(cls?.name).toBe("Основные сведения");
    expect(cls?.def_fields).toEqual(DEFAULT_NAMES.map((n) => byName.get(n)!.field_def_id));
  });

  it("fills the fields from a JPEG's embedded XMP and IPTC after the upload", async () => {
    const user = await signIn();
    const { assetId } = await uploadFile(user.bearer, { name: "закат.jpg", mime: "image/jpeg", bytes: photoWithEmbeddedMetadata() });
    await endedTaskOf(assetId, "tech-fields");
    const byName = await templatesByName(user.bearer);
    const values = await ok<Value[]>(`/api/fields/for-entity/${assetId}`, user.bearer);
    const of = (name: string) => values.filter((v) => v.def_id === byName.get(name)!.field_def_id).map((v) => v.field_data);
    expect(of("Заголовок")).toEqual(["Закат над морем"]);
    expect(of("Описание")).toEqual(["Описание, с запятой"]);
    expect(of("Автор")).toEqual(["Иван Петров"]);
    expect(of("Авторские права")).toEqual(["© 2026 Студия"]);
    expect(of("Ключевые слова").sort()).toEqual(["закат", "море"]);
    expect(of("Условия использования")).toEqual(["Только для редакции"]);
    expect(of("Правообладатель")).toEqual(["Studio Credit"]);
    expect(of("Дата съёмки")).toEqual(["2026-06-01"]);
  });

  it("stays editable: an administrator renames and deletes a default field", async () => {
    const admin = await signInAdmin();
    const place = (await templatesByName(admin.bearer)).get("Место")!;
    const renamed = await ok<Template>(`/api/fields/template/${place.field_def_id}`, admin.bearer, { method: "PATCH", json: { field_def_name: "Место съёмки" } });
    expect(renamed.field_def_name).toBe("Место съёмки");
    const res = await call(`/api/fields/template/${place.field_def_id}?force=true`, { method: "DELETE", bearer: admin.bearer });
    expect(res.status).toBe(200);
    const classes = await ok<{ id: string; def_fields: string[] }[]>("/api/asset/class/list?take=500", admin.bearer);
    expect(classes.find((c) => c.id === DEFAULT_CLASS_ID)?.def_fields).not.toContain(place.field_def_id);
  });

  it("seeds an existing install once, reusing a field an administrator already made under the same name", async () => {
    const admin = await signInAdmin();
    // An install from before the seed, whose administrator had made «описание» (lower case) already.
    await env.DB.batch([
      env.DB.prepare("DELETE FROM asset_classes WHERE id = ?").bind(DEFAULT_CLASS_ID),
      env.DB.prepare("DELETE FROM field_templates WHERE id LIKE '000000000000000000000000000d0f%'"),
    ]);
    const own = await ok<Template>("/api/fields/template", admin.bearer, { json: { field_def_name: "описание", field_type: "text" } });
    const seed = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0048_"))!;
    for (let run = 0; run < 2; run++) for (const query of seed.queries) await env.DB.prepare(query).run();
    const named = await rows<{ id: string; name: string }>("SELECT id, name FROM field_templates WHERE name IN ('Описание', 'описание', 'ОПИСАНИЕ')");
    expect(named).toEqual([{ id: own.field_def_id, name: "описание" }]);
    expect(await rows("SELECT id FROM field_templates WHERE name = 'Заголовок'")).toHaveLength(1);
    const [cls] = await rows<{ def_fields: string }>("SELECT def_fields FROM asset_classes WHERE id = ?", DEFAULT_CLASS_ID);
    const defs = JSON.parse(cls.def_fields) as string[];
    expect(defs).toHaveLength(9);
    expect(defs).toContain(own.field_def_id);
  });
});
