import { describe, expect, it } from "vitest";
import { activeNavTarget } from "../../app/lib/nav-active";

const NAV = ["/mam", "/search", "/jobs", "/automations", "/shop", "/mam/trash", "/admin"];

describe("activeNavTarget", () => {
  it("highlights exactly one item: the trash, not also the files it sits under", () => {
    expect(activeNavTarget("/mam/trash", NAV)).toBe("/mam/trash");
  });

  it("highlights «Файлы» for the root, folders, files in folders and files opened by id", () => {
    expect(activeNavTarget("/mam", NAV)).toBe("/mam");
    expect(activeNavTarget("/mam/0123456789abcdef0123456789abcdef", NAV)).toBe("/mam");
    expect(activeNavTarget("/mam/0123456789abcdef0123456789abcdef/asset/fedcba9876543210fedcba9876543210", NAV)).toBe("/mam");
    expect(activeNavTarget("/asset/fedcba9876543210fedcba9876543210", NAV)).toBe("/mam");
  });

  it("matches whole path segments only, and nothing for a path no item covers", () => {
    expect(activeNavTarget("/admin/user/1/groups", NAV)).toBe("/admin");
    expect(activeNavTarget("/mamba", NAV)).toBeNull();
    expect(activeNavTarget("/mam/trashcan", NAV)).toBe("/mam");
    expect(activeNavTarget("/login", NAV)).toBeNull();
  });
});
