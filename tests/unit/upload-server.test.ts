import { describe, expect, it } from "vitest";
import { chooseUploadServer } from "../../workers/services/system/system.service";

const servers = [
  { id: "eu", url: "https://eu.example/api" },
  { id: "us", url: "https://us.example/api" },
  { id: "asia", url: "https://asia.example/api" },
];

describe("chooseUploadServer", () => {
  it("picks the lowest ping", () => {
    expect(
      chooseUploadServer(servers, [
        { id: "eu", ping: 50 },
        { id: "us", ping: 20 },
        { id: "asia", ping: 90 },
      ]),
    ).toBe("us");
  });

  it("keeps the first of equal pings", () => {
    expect(
      chooseUploadServer(servers, [
        { id: "asia", ping: 20 },
        { id: "us", ping: 20 },
      ]),
    ).toBe("asia");
  });

  it("accepts a zero ping and ignores negative and null pings", () => {
    expect(
      chooseUploadServer(servers, [
        { id: "eu", ping: 0 },
        { id: "us", ping: 5 },
      ]),
    ).toBe("eu");
    expect(
      chooseUploadServer(servers, [
        { id: "eu", ping: -1 },
        { id: "us", ping: null },
        { id: "asia", ping: 300 },
      ]),
    ).toBe("asia");
  });

  it("ignores unknown ids even with the best ping", () => {
    expect(
      chooseUploadServer(servers, [
        { id: "evil", ping: 1 },
        { id: "eu", ping: 100 },
      ]),
    ).toBe("eu");
  });

  it("falls back to the first configured server among the reported ones when none is reachable", () => {
    expect(
      chooseUploadServer(servers, [
        { id: "asia", ping: null },
        { id: "us", ping: null },
      ]),
    ).toBe("us");
  });

  it("answers null when no known server is named", () => {
    expect(chooseUploadServer(servers, [])).toBeNull();
    expect(chooseUploadServer(servers, [{ id: "mars", ping: 3 }])).toBeNull();
    expect(chooseUploadServer([], [{ id: "eu", ping: 3 }])).toBeNull();
  });
});
