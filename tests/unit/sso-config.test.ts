import { describe, expect, it } from "vitest";
import { getConfig } from "../../workers/lib/config";

const SECRET = "x".repeat(32);
const parse = (providers: unknown) =>
  getConfig({ JWT_SECRET: SECRET, SSO_PROVIDERS: JSON.stringify(providers) } as unknown as Env).SSO_PROVIDERS;

describe("SSO_PROVIDERS", () => {
  it("parses providers with defaults: provisioning on, public client without a secret, default claim", () => {
    const [p] = parse([{ id: "corp", name: "Corp SSO", issuer: "https://id.corp.test", client_id: "mam" }]);
    expect(p).toEqual({ id: "corp", name: "Corp SSO", issuer: "https://id.corp.test", client_id: "mam", provision: true });
    expect(p.client_secret).toBeUndefined();
    expect(p.claim).toBeUndefined();
  });

  it("keeps secret, claim, provisioning and extra scopes when given", () => {
    const [p] = parse([
      {
        id: "kc-1",
        name: "Keycloak",
        issuer: "https://kc.test/realms/x",
        client_id: "mam",
        client_secret: "s",
        claim: "email",
        provision: false,
        scope: "groups",
      },
    ]);
    expect(p).toMatchObject({ client_secret: "s", claim: "email", provision: false, scope: "groups" });
  });

  it.each([
    ["an id with capitals", { id: "Corp", name: "n", issuer: "https://i.test", client_id: "c" }],
    ["an id with a slash", { id: "a/b", name: "n", issuer: "https://i.test", client_id: "c" }],
    ["an issuer that is not a URL", { id: "a", name: "n", issuer: "corp", client_id: "c" }],
    ["no client_id", { id: "a", name: "n", issuer: "https://i.test" }],
    ["provision as a string", { id: "a", name: "n", issuer: "https://i.test", client_id: "c", provision: "yes" }],
  ])("refuses %s (the whole configuration is invalid)", (_label, provider) => {
    expect(() => parse([provider])).toThrow(/SSO_PROVIDERS/);
  });

  it("treats an empty value as no providers", () => {
    expect(getConfig({ JWT_SECRET: SECRET, SSO_PROVIDERS: "" } as unknown as Env).SSO_PROVIDERS).toEqual([]);
  });
});
