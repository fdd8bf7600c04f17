import { afterEach, describe, expect, it, vi } from "vitest";
import { forgetDiscovery } from "../../workers/services/wopi/discovery";
import { proofBytes, ticksOf } from "../../workers/services/wopi/proof";
import { toBase64 } from "../../workers/lib/crypto";
import { json } from "./asset-fixtures";
import { expectError, ORIGIN } from "./factories";
import { fileUrl, hit, officeFile, wopiToken } from "./wopi-fixtures";

/**
 * Requests as an office editor that publishes proof keys sends them: an RSA key pair made here, its public half in
 * a discovery document served through a fetch spy at WOPI_DISCOVERY_URL.
 */

type KeyPair = CryptoKeyPair & { modulus: string; exponent: string };

async function rsaKey(): Promise<KeyPair> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const std = (b64url: string) => b64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64url.length % 4)) % 4);
  return { ...pair, modulus: std(jwk.n!), exponent: std(jwk.e!) };
}

let counter = 0;

/** Serves a discovery document with these keys at a fresh URL; answers the variables pointing at it. */
function serveDiscovery(current: KeyPair, old?: KeyPair): Record<string, string> {
  const url = `http://editor-${++counter}.test/hosting/discovery`;
  const xml = `<?xml version="1.0"?><wopi-discovery><net-zone name="external-http">
    <app name="writer" favIconUrl="http://editor.test/writer.ico">
      <action name="edit" ext="docx" urlsrc="http://editor.test/browser/cool.html?&lt;ui=UI_LLCC&amp;&gt;"/>
      <action name="view" ext="docx" urlsrc="http://editor.test/browser/view.html?"/>
    </app></net-zone>
    <proof-key value="unused" modulus="${current.modulus}" exponent="${current.exponent}"${old ? ` oldvalue="unused" oldmodulus="${old.modulus}" oldexponent="${old.exponent}"` : ""}/>
  </wopi-discovery>`;
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const target = input instanceof Request ? input.url : String(input);
    if (target === url) return new Response(xml, { headers: { "content-type": "text/xml" } });
    // any other editor host is down (no real network in tests)
    if (new URL(target).hostname.endsWith(".test")) return new Response("Bad Gateway", { status: 502 });
    return real(input, init);
  });
  return { WOPI_DISCOVERY_URL: url };
}

afterEach(() => {
  vi.restoreAllMocks();
  forgetDiscovery();
});

async function sign(key: CryptoKey, token: string, url: string, ms: number): Promise<string> {
  const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, proofBytes(token, url, ticksOf(ms)));
  return toBase64(new Uint8Array(sig));
}

/** The headers an editor adds: proofs over the full URL it calls. */
async function proved(path: string, token: string, o: { key: CryptoKey; oldKey?: CryptoKey; at?: number; signedUrl?: string }) {
  const at = o.at ?? Date.now();
  const url = o.signedUrl ?? `${ORIGIN}${path}`;
  return {
    "x-wopi-timestamp": ticksOf(at).toString(),
    "x-wopi-proof": await sign(o.key, token, url, at),
    ...(o.oldKey ? { "x-wopi-proofold": await sign(o.oldKey, token, url, at) } : {}),
  };
}

describe("proof keys", () => {
  it("accepts requests signed with the current key, over X-WOPI-Proof or X-WOPI-ProofOld, and with the old key", async () => {
    const [current, old, stranger] = await Promise.all([rsaKey(), rsaKey(), rsaKey()]);
    const vars = serveDiscovery(current, old);
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    const path = fileUrl(f.assetId, tok);
    expect((await hit(path, { vars, headers: await proved(path, tok, { key: current.privateKey }) })).status).toBe(200);
    // rotation in progress: the editor signs with its new key, which the host knows only as the old one …
    expect((await hit(path, { vars, headers: await proved(path, tok, { key: old.privateKey }) })).status).toBe(200);
    // … or the host is ahead: X-WOPI-ProofOld carries the current key's signature
    const at = Date.now();
    const mixed = {
      ...(await proved(path, tok, { key: stranger.privateKey, at })),
      "x-wopi-proofold": (await proved(path, tok, { key: current.privateKey, at }))["x-wopi-proof"],
    };
    expect((await hit(path, { vars, headers: mixed })).status).toBe(200);
    // contents and lock calls are checked the same way
    const contents = fileUrl(f.assetId, tok, "/contents");
    const res = await hit(contents, { vars, headers: await proved(contents, tok, { key: current.privateKey }) });
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(f.bytes);
  });

  it("refuses missing, foreign, stale (over 20 minutes) and other-URL proofs with 401", async () => {
    const [current, stranger] = await Promise.all([rsaKey(), rsaKey()]);
    const vars = serveDiscovery(current);
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    const path = fileUrl(f.assetId, tok);
    expect((await expectError(await hit(path, { vars }), 401)).message).toMatch(/не подписан/);
    await expectError(await hit(path, { vars, headers: await proved(path, tok, { key: stranger.privateKey }) }), 401);
    const stale = await expectError(await hit(path, { vars, headers: await proved(path, tok, { key: current.privateKey, at: Date.now() - 21 * 60_000 }) }), 401);
    expect(stale.message).toMatch(/20 минут/);
    expect((await hit(path, { vars, headers: await proved(path, tok, { key: current.privateKey, at: Date.now() - 19 * 60_000 }) })).status).toBe(200);
    await expectError(await hit(path, { vars, headers: await proved(path, tok, { key: current.privateKey, signedUrl: `${ORIGIN}/api/wopi/files/other` }) }), 401);
    await expectError(await hit(path, { vars, headers: { ...(await proved(path, tok, { key: current.privateKey })), "x-wopi-timestamp": "soon" } }), 401);
  });

  it("lets the app's own viewer (browser tokens) through without proofs; without published keys nothing is checked", async () => {
    const current = await rsaKey();
    const vars = serveDiscovery(current);
    const f = await officeFile();
    const browser = (await wopiToken(f.owner.bearer, f.assetId, "edit", "browser")).access_token;
    expect((await hit(fileUrl(f.assetId, browser), { vars })).status).toBe(200);
    const editor = (await wopiToken(f.owner.bearer, f.assetId)).access_token;
    expect((await hit(fileUrl(f.assetId, editor))).status).toBe(200);
  });
});

describe("app-url", () => {
  it("answers the editor URL for the extension with WOPISrc, a fresh token and the action the user may take", async () => {
    const vars = serveDiscovery(await rsaKey());
    const f = await officeFile();
    expect((await wopiToken(f.owner.bearer, f.assetId, "edit", "browser", vars)).office_editor).toBe("available");
    const res = await hit(`/api/wopi/app-url/${f.assetId}?action=edit`, { vars, headers: { authorization: `Bearer ${f.owner.bearer}` } });
    const body = await json<{ url: string; action: string; favicon: string; access_token: string; access_token_ttl: number }>(res);
    expect(body.url).toBe(`http://editor.test/browser/cool.html?ui=ru-RU&WOPISrc=${encodeURIComponent(`${ORIGIN}/api/wopi/files/${f.assetId}`)}`);
    expect(body).toMatchObject({ action: "edit", favicon: "http://editor.test/writer.ico" });
    expect(body.access_token_ttl).toBeGreaterThan(Date.now());
    const view = await json<{ url: string; action: string }>(await hit(`/api/wopi/app-url/${f.assetId}?action=view`, { vars, headers: { authorization: `Bearer ${f.owner.bearer}` } }));
    expect(view).toMatchObject({ action: "view" });
    expect(view.url.startsWith("http://editor.test/browser/view.html?WOPISrc=")).toBe(true);
  });

  it("answers 404 without an editor or for a type it does not open, 503 when the editor cannot be reached", async () => {
    const f = await officeFile({ name: "notes.xyz", mime: "application/octet-stream" });
    const auth = { authorization: `Bearer ${f.owner.bearer}` };
    expect((await expectError(await hit(`/api/wopi/app-url/${f.assetId}`, { headers: auth }), 404)).message).toMatch(/не настроен/);
    const vars = serveDiscovery(await rsaKey());
    expect((await expectError(await hit(`/api/wopi/app-url/${f.assetId}`, { vars, headers: auth }), 404)).message).toMatch(/xyz/);
    expect((await wopiToken(f.owner.bearer, f.assetId, "edit", "browser", vars)).office_editor).toBe("unsupported");
    expect((await wopiToken(f.owner.bearer, f.assetId, "edit", "browser", { WOPI_DISCOVERY_URL: "http://down.test/d" })).office_editor).toBe("unreachable");
    await expectError(await hit(`/api/wopi/app-url/${f.assetId}`, { vars: { WOPI_DISCOVERY_URL: "http://down.test/hosting/discovery" }, headers: auth }), 503);
  });
});
