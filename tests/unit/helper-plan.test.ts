import { describe, expect, it } from "vitest";
import { localNameOf, uniqueName } from "../../helper/conflict-name";
import { planSync, type LocalFile, type ManifestEntry, type RemoteFile } from "../../helper/plan";

const entry = (path: string, id: string, sha = `h-${id}`): ManifestEntry => ({ path, asset_id: id, variant_id: `v-${id}`, size: 10, mtime_ms: 1000, sha256: sha });
const local = (path: string, size = 10, mtime = 1000): LocalFile => ({ path, size, mtime_ms: mtime });
const remote = (id: string, name: string, sha = `h-${id}`, size = 10): RemoteFile => ({ asset_id: id, name, variant_id: `v-${id}`, size, sha256: sha });
const name = (r: RemoteFile, taken: (p: string) => boolean) => uniqueName(localNameOf(r.name), taken);
const plan = (m: ManifestEntry[], l: LocalFile[], r: RemoteFile[], same = false) => planSync(m, l, r, async () => same, name);
const kinds = async (p: ReturnType<typeof plan>) => (await p).map((a) => `${a.kind}:${"path" in a ? a.path : a.entry.path}`);

describe("planSync", () => {
  it("does nothing when both sides are as the manifest remembers them", async () => {
    expect(await plan([entry("a.txt", "1")], [local("a.txt")], [remote("1", "a.txt")])).toEqual([]);
  });

  it("uploads a file new on disk and downloads a file new on the server", async () => {
    expect(await kinds(plan([], [local("new.txt")], [remote("2", "server.txt")]))).toEqual(["download:server.txt", "upload-new:new.txt"]);
  });

  it("uploads a new version when only the local file changed (size or modification time)", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt", 10, 2000)], [remote("1", "a.txt")]))).toEqual(["upload-version:a.txt"]);
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt", 11)], [remote("1", "a.txt")]))).toEqual(["upload-version:a.txt"]);
  });

  it("downloads when only the server's file changed", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt")], [remote("1", "a.txt", "new-hash")]))).toEqual(["download:a.txt"]);
  });

  it("reports a conflict when both sides changed since the last sync", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt", 12)], [remote("1", "a.txt", "new-hash")]))).toEqual(["conflict:a.txt"]);
  });

  it("trashes on the other side what was deleted on one side and unchanged on the other", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [], [remote("1", "a.txt")]))).toEqual(["trash-remote:a.txt"]);
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt")], []))).toEqual(["trash-local:a.txt"]);
  });

  it("lets a change win over a deletion on the other side (nothing is lost)", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [], [remote("1", "a.txt", "edited")]))).toEqual(["download:a.txt"]);
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt", 99)], []))).toEqual(["forget:a.txt", "upload-new:a.txt"]);
  });

  it("forgets a file gone from both sides", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [], []))).toEqual(["forget:a.txt"]);
  });

  it("links a file new on both sides with the same bytes, and calls different bytes a conflict", async () => {
    expect(await kinds(plan([], [local("a.txt")], [remote("1", "a.txt")], true))).toEqual(["link:a.txt"]);
    expect(await kinds(plan([], [local("a.txt")], [remote("1", "a.txt")], false))).toEqual(["conflict:a.txt"]);
  });

  it("gives two server files of one name two local names", async () => {
    expect(await kinds(plan([], [], [remote("1", "a.txt"), remote("2", "a.txt")]))).toEqual(["download:a.txt", "download:a (2).txt"]);
  });

  it("never downloads over a known local file of another asset", async () => {
    expect(await kinds(plan([entry("a.txt", "1")], [local("a.txt")], [remote("1", "a.txt"), remote("2", "a.txt")]))).toEqual(["download:a (2).txt"]);
  });

  it("orders renames and trash moves before transfers", async () => {
    const actions = await plan(
      [entry("gone.txt", "1"), entry("both.txt", "2")],
      [local("both.txt", 50), local("fresh.txt")],
      [remote("1", "gone.txt"), remote("2", "both.txt", "x"), remote("3", "server.txt")],
    );
    expect(actions.map((a) => a.kind)).toEqual(["trash-remote", "conflict", "download", "upload-new"]);
  });
});

describe("localNameOf", () => {
  it("makes a server name one safe local segment", () => {
    expect(localNameOf("a/b\\c.txt")).toBe("a_b_c.txt");
    expect(localNameOf("..")).toBe("_");
    expect(localNameOf(".hidden")).toBe("_.hidden");
    expect(localNameOf("Отчёт.docx")).toBe("Отчёт.docx");
  });
});
