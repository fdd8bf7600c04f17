import { describe, expect, it } from "vitest";
import { outboundUrlProblem } from "../../workers/lib/outbound-url";

/**
 * The outbound-address filter (storage endpoints, automation webhooks) against the spellings an attacker tries for
 * internal addresses. Every address is judged after the WHATWG URL parser has normalised it, as fetch will see it.
 */

const strict = { allowLoopback: false };
const refused = (url: string) => outboundUrlProblem(url, strict);

describe("IPv4 loopback, private and metadata addresses in every spelling", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/", // decimal
    "http://0x7f000001/", // hex
    "http://0177.0.0.1/", // octal
    "http://0x7f.1/", // mixed, short form
    "http://127.1/",
    "http://127.0.0.1./", // trailing dot
    "http://0/",
    "http://0.0.0.0:9000/",
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/", // 169.254.169.254 in decimal
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://１２７.０.０.１/", // full-width digits (IDNA maps them to ASCII)
    "http://①②⑦.0.0.1/",
  ])("%s is refused", (url) => {
    expect(refused(url)).not.toBeNull();
  });
});

describe("IPv6 forms that reach IPv4 or local networks", () => {
  it.each([
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/", // IPv4-mapped
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::127.0.0.1]/", // IPv4-compatible
    "http://[64:ff9b::10.0.0.1]/", // NAT64
    "http://[fd00::1]/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    // Found by this review: each carries or reaches an internal address, and each was answered "public".
    "http://[::ffff:0:127.0.0.1]/", // IPv4-translated (RFC 2765)
    "http://[64:ff9b:1::a9fe:a9fe]/", // local-use NAT64 (RFC 8215)
    "http://[2002:7f00:1::]/", // 6to4 of 127.0.0.1
    "http://[2002:a9fe:a9fe::1]/", // 6to4 of 169.254.169.254
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", // Teredo (its client address is 127.0.0.1 inverted)
    "http://[fec0::1]/", // site-local (deprecated, still routed inside some networks)
    "http://[100::1]/", // discard prefix
  ])("%s is refused", (url) => {
    expect(refused(url)).not.toBeNull();
  });

  it("a public IPv6 address passes", () => {
    expect(refused("https://[2606:4700:4700::1111]/")).toBeNull();
  });
});

describe("names, schemes and userinfo", () => {
  it.each([
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", // IDNA folds it to localhost
    "http://metadata/",
    "http://metadata.google.internal/",
    "http://printer.local/",
    "http://nas.lan/",
    "http://router.home.arpa/",
    "ftp://example.com/",
    "file:///etc/passwd",
    "gopher://example.com:70/",
    "data:text/plain,x",
    "javascript:alert(1)",
    "ws://example.com/",
    "http://user:pass@example.com/",
    "http://example.com@127.0.0.1/",
    "http://127.0.0.1#@example.com/",
    "http://127.0.0.1\\@example.com/",
    "not a url",
  ])("%s is refused", (url) => {
    expect(refused(url)).not.toBeNull();
  });

  it("public names and addresses pass; loopback passes only when allowed", () => {
    expect(refused("https://s3.eu-central-1.amazonaws.com")).toBeNull();
    expect(refused("https://8.8.8.8/")).toBeNull();
    expect(refused("http://example.com@evil.example/")).not.toBeNull();
    expect(outboundUrlProblem("http://127.0.0.1:9000/", { allowLoopback: true })).toBeNull();
    expect(outboundUrlProblem("http://[::1]:9000/", { allowLoopback: true })).toBeNull();
    expect(outboundUrlProblem("http://169.254.169.254/", { allowLoopback: true })).not.toBeNull();
  });
});
