import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { helperObjectKey } from "../../shared/helper-platforms";
import { ru } from "../../shared/i18n/ru";
import { call, expectError, signIn } from "./factories";

/** The local disk helper as a download (`npm run helper:build -- --upload` puts the programs into R2). */
describe("GET /api/helper/builds and /api/helper/download/{platform}", () => {
  afterEach(async () => {
    await env.MEDIA.delete(helperObjectKey("windows-x64"));
  });

  it("answers 404 in Russian when the administrator has not uploaded the platform's program", async () => {
    const { bearer } = await signIn();
    const list = await call("/api/helper/builds", { bearer });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual([]);
    const body = await expectError(await call("/api/helper/download/windows-x64", { bearer }), 404);
    expect(body.message).toBe(ru.helperBuilds.notUploaded);
  });

  it("gives any signed-in user the uploaded program under its platform's file name", async () => {
    const program = new Uint8Array([0x4d, 0x5a, 1, 2, 3]);
    await env.MEDIA.put(helperObjectKey("windows-x64"), program);
    const { bearer } = await signIn();
    const list = await call("/api/helper/builds", { bearer });
    expect(await list.json()).toEqual([{ platform: "windows-x64", file: "mam-helper-windows-x64.exe", size: 5, uploaded_at: expect.any(String) }]);
    const res = await call("/api/helper/download/windows-x64", { bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="mam-helper-windows-x64.exe"');
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(program);
  });

  it("refuses callers without a token and unknown platforms", async () => {
    await env.MEDIA.put(helperObjectKey("windows-x64"), new Uint8Array([1]));
    await expectError(await call("/api/helper/download/windows-x64"), 401);
    await expectError(await call("/api/helper/builds"), 401);
    const { bearer } = await signIn();
    await expectError(await call("/api/helper/download/amiga-m68k", { bearer }), 400);
  });
});
