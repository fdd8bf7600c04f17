import { describe, expect, it } from "vitest";
import { completeDevVars as complete } from "../../scripts/dev-vars.mjs";

describe("npm start's .dev.vars", () => {
  it("writes a login, a password and a 32+ character JWT secret into an empty file", () => {
    const { text, vars, added } = complete("");
    expect(added).toEqual(["ADMIN_LOGIN", "ADMIN_PASSWORD", "JWT_SECRET"]);
    expect(vars.ADMIN_LOGIN).toBe("admin");
    expect(vars.ADMIN_PASSWORD.length).toBeGreaterThanOrEqual(12);
    expect(vars.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(text).toContain(`JWT_SECRET=${vars.JWT_SECRET}\n`);
  });

  it("adds only the JWT secret to a file that has everything else, keeping the rest as it was", () => {
    const before = "# mine\nADMIN_LOGIN=boss\nADMIN_PASSWORD=secret-pass\nMETRICS_TOKEN=abc";
    const { text, vars, added } = complete(before);
    expect(added).toEqual(["JWT_SECRET"]);
    expect(text.startsWith(`${before}\nJWT_SECRET=`)).toBe(true);
    expect(vars).toMatchObject({ ADMIN_LOGIN: "boss", ADMIN_PASSWORD: "secret-pass", METRICS_TOKEN: "abc" });
  });

  it("replaces a JWT secret too short to sign with, in place", () => {
    const { text, added } = complete("ADMIN_LOGIN=admin\nJWT_SECRET=short\nADMIN_PASSWORD=x\n");
    expect(added).toEqual(["JWT_SECRET"]);
    expect(text).not.toContain("JWT_SECRET=short");
    expect(text.split("\n")[1]).toMatch(/^JWT_SECRET=[\w-]{32,}$/);
  });

  it("leaves a complete file untouched", () => {
    const full = `ADMIN_LOGIN=admin\nADMIN_PASSWORD=p\nJWT_SECRET=${"k".repeat(40)}\n`;
    expect(complete(full)).toMatchObject({ text: full, added: [] });
  });
});
