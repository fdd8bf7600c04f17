import { describe, expect, it } from "vitest";
import { acceptsGzip } from "../../workers/lib/accept-encoding";

describe("acceptsGzip", () => {
  it("accepts what browsers send", () => {
    expect(acceptsGzip("gzip, deflate, br, zstd")).toBe(true);
    expect(acceptsGzip("br;q=1.0, gzip;q=0.8")).toBe(true);
    expect(acceptsGzip("x-gzip")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
  });

  it("refuses what does not accept gzip", () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("br, identity")).toBe(false);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("*;q=0.5, gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip;q=abc")).toBe(false);
  });
});
