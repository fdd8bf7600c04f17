import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { call, expectError } from "./factories";
import { admin, createGroup, getJson, insertAsset, ordinaryUser, ROOT_GROUP_ID, send, uniqueName, type Caller } from "./library-factories";

// Access rules, inheritance, groups of users and the access reads (SPEC §6): each endpoint happy, bad input and
// refused (nothing changes), and the evaluation seen through the library calls.

interface Rule {
  rule_id: string;
  subj_id: string;
  obj_id: string;
  acl: string[];
  subj_name: string | null;
  obj_name: string | null;
}

async function rows(query: string, ...params: unknown[]) {
  return (
    await env.DB.prepare(query)
      .bind(...params)
      .all()
  ).results;
}

/** Everything access changes write, to prove a refusal changed nothing. */
async function accessSnapshot() {
  return {
    rules: await rows("SELECT * FROM access_rules ORDER BY id"),
    inheritance: await rows("SELECT * FROM access_inheritance ORDER BY entity_id"),
    userGroups: await rows("SELECT * FROM user_group_members ORDER BY group_id, user_id"),
    audit: await rows("SELECT id FROM audit_log ORDER BY id"),
  };
}

async function grant(by: Caller, subj: string, obj: string, acl: string[]): Promise<Rule> {
  const res = await send<Rule>("POST", "/api/user/acl", by.bearer, { subj, obj, acl });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A tree top/mid/leaf of the admin with an asset in the leaf. */
async function tree() {
  const boss = await admin();
  const top = await createGroup(boss, uniqueName("Верх"));
  const mid = await createGroup(boss, "Середина", top);
  const leaf = await createGroup(boss, "Лист", mid);
  const asset = await insertAsset({ ownerId: boss.id, groups: [leaf], name: "Кадр.mp4" });
  return { boss, top, mid, leaf, asset: asset.id };
}

async function levels(bearer: string, id: string): Promise<string[] | number> {
  const res = await call(`/api/auth/entity-access/${id}`, { bearer });
  if (res.status !== 200) return res.status;
  return ((await res.json()) as { acl: string[] }).acl;
}

describe("POST /api/user/acl and GET/PATCH/DELETE /api/user/acl/{id}", () => {
  it("creates a rule with names, reads, changes and deletes it, each with an audit entry", async () => {
    const { boss, top } = await tree();
    const user = await ordinaryUser("Получатель");
    const rule = await grant(boss, user.id, top, ["read", "download"]);
    expect(rule).toMatchObject({ subj_id: user.id, subj_type: "user", obj_id: top, obj_type: "group", acl: ["read", "download"] });
    expect(rule.subj_name).toBe("Получатель");
    expect(await getJson<Rule>(`/api/user/acl/${rule.rule_id}`, boss.bearer)).toMatchObject({ rule_id: rule.rule_id });
    // The subject may see its own rule.
    expect(await getJson<Rule>(`/api/user/acl/${rule.rule_id}`, user.bearer)).toMatchObject({ rule_id: rule.rule_id });

    const patched = await send<Rule>("PATCH", `/api/user/acl/${rule.rule_id}`, boss.bearer, { acl: ["read", "update"] });
    expect(patched).toMatchObject({ status: 200, body: { acl: ["read", "update"] } });
    expect((await send("DELETE", `/api/user/acl/${rule.rule_id}`, boss.bearer)).status).toBe(204);
    await expectError(await call(`/api/user/acl/${rule.rule_id}`, { bearer: boss.bearer }), 404);
    const actions = (await rows("SELECT action FROM audit_log WHERE object_id = ? ORDER BY ctime, id", top)).map((r) => String(r.action));
    // each rule change is also a share in the folder's own history, in the same batch
    expect(actions.filter((a) => a.startsWith("acl."))).toEqual(["acl.create", "acl.update", "acl.delete"]);
    expect(actions.filter((a) => a === "group.share")).toHaveLength(3);
  });

  it("answers 400 for unknown levels, empty lists, bad ids and the virtual root; 404 for unknown subjects and objects", async () => {
    const { boss, top } = await tree();
    const user = await ordinaryUser();
    const before = await accessSnapshot();
    await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: user.id, obj: top, acl: ["fly"] } }),
      400,
    );
    await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: user.id, obj: top, acl: [] } }),
      400,
    );
    await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: "x", obj: top, acl: ["read"] } }),
      400,
    );
    await expectError(await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { obj: top, acl: ["read"] } }), 400);
    const root = await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: user.id, obj: ROOT_GROUP_ID, acl: ["read"] } }),
      400,
    );
    expect(root.message).toBe(ru.access.rootNoRules);
    const noSubject = await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: "5".repeat(32), obj: top, acl: ["read"] } }),
      404,
    );
    expect(noSubject.message).toBe(ru.access.subjectNotFound);
    const noObject = await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: user.id, obj: "5".repeat(32), acl: ["read"] } }),
      404,
    );
    expect(noObject.message).toBe(ru.access.objectNotFound);
    await expectError(
      await call("/api/user/acl", {
        method: "POST",
        bearer: boss.bearer,
        json: { subj: user.id, subj_type: "group", obj: top, acl: ["read"] },
      }),
      404,
    );
    expect(await accessSnapshot()).toEqual(before);
    await grant(boss, user.id, top, ["read"]);
    await expectError(
      await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: user.id, obj: top, acl: ["update"] } }),
      409,
    );
  });

  it("refuses rule changes without acl (404 when unreadable, 403 when readable) and grants beyond one's own levels", async () => {
    const { boss, top, mid } = await tree();
    const manager = await ordinaryUser();
    const other = await ordinaryUser();
    const before = await accessSnapshot();
    await expectError(
      await call("/api/user/acl", { method: "POST", bearer: manager.bearer, json: { subj: other.id, obj: top, acl: ["read"] } }),
      404,
    );
    expect(await accessSnapshot()).toEqual(before);
    await grant(boss, manager.id, top, ["read"]);
    await expectError(
      await call("/api/user/acl", { method: "POST", bearer: manager.bearer, json: { subj: other.id, obj: top, acl: ["read"] } }),
      403,
    );

    const aclRule = await grant(boss, manager.id, mid, ["acl", "update"]);
    // read comes from the top rule through inheritance, update and acl from the rule on mid.
    const ok = await send<Rule>("POST", "/api/user/acl", manager.bearer, { subj: other.id, obj: mid, acl: ["read", "update", "deny"] });
    expect(ok.status).toBe(201);
    const snapshot = await accessSnapshot();
    const tooMuch = await expectError(
      await call("/api/user/acl", { method: "POST", bearer: manager.bearer, json: { subj: other.id, obj: `${mid}`, acl: ["delete"] } }),
      409,
    );
    expect(tooMuch.message).toBe(ru.access.ruleExists);
    const escalate = await expectError(
      await call(`/api/user/acl/${ok.body.rule_id}`, { method: "PATCH", bearer: manager.bearer, json: { acl: ["read", "superuser"] } }),
      403,
    );
    expect(escalate.message).toBe(ru.access.cannotGrant("Полный доступ"));
    // Nobody can raise their own rule beyond what they hold.
    await expectError(
      await call(`/api/user/acl/${aclRule.rule_id}`, { method: "PATCH", bearer: manager.bearer, json: { acl: ["acl", "delete"] } }),
      403,
    );
    // A rule on an object the caller cannot read is reported as missing.
    const hidden = await grant(boss, other.id, (await createGroup(boss, uniqueName())) as string, ["read"]);
    await expectError(await call(`/api/user/acl/${hidden.rule_id}`, { bearer: manager.bearer }), 404);
    await expectError(await call(`/api/user/acl/${hidden.rule_id}`, { method: "DELETE", bearer: manager.bearer }), 404);
    expect((await accessSnapshot()).rules).toEqual(
      [...snapshot.rules, ...(await rows("SELECT * FROM access_rules WHERE id = ?", hidden.rule_id))].sort((a, b) =>
        String(a.id).localeCompare(String(b.id)),
      ),
    );
    await expectError(await call(`/api/user/acl/${"6".repeat(32)}`, { bearer: boss.bearer }), 404);
    await expectError(await call("/api/user/acl/zzz", { bearer: boss.bearer }), 400);
    await expectError(
      await call(`/api/user/acl/${ok.body.rule_id}`, { method: "PATCH", bearer: boss.bearer, json: { acl: ["nope"] } }),
      400,
    );
  });

  it("requires a signed-in caller", async () => {
    await expectError(
      await call("/api/user/acl", { method: "POST", json: { subj: "1".repeat(32), obj: "2".repeat(32), acl: ["read"] } }),
      401,
    );
    await expectError(await call(`/api/user/acl/${"1".repeat(32)}`), 401);
  });
});

describe("PATCH /api/user/acl-list", () => {
  it("creates, changes and deletes in one batch, or nothing when one change is refused", async () => {
    const { boss, top, mid, leaf } = await tree();
    const a = await ordinaryUser();
    const b = await ordinaryUser();
    const old = await grant(boss, a.id, leaf, ["read"]);
    const gone = await grant(boss, b.id, leaf, ["read"]);
    const res = await send<{ created: string[]; rules: Rule[] }>("PATCH", "/api/user/acl-list", boss.bearer, {
      create: [
        { subj: a.id, obj: top, acl: ["read"] },
        { subj: b.id, obj: mid, acl: ["download"] },
      ],
      update: [{ rule_id: old.rule_id, acl: ["read", "update"] }],
      delete: [gone.rule_id],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.created).toHaveLength(2);
    expect(res.body.rules.find((r) => r.rule_id === old.rule_id)?.acl).toEqual(["read", "update"]);
    expect(await rows("SELECT id FROM access_rules WHERE id = ?", gone.rule_id)).toEqual([]);

    const c = await ordinaryUser();
    const user = await ordinaryUser();
    const before = await accessSnapshot();
    const refused = await send("PATCH", "/api/user/acl-list", boss.bearer, {
      create: [{ subj: c.id, obj: leaf, acl: ["delete"] }],
      delete: ["7".repeat(32)],
    });
    expect(refused.status).toBe(404);
    expect(await accessSnapshot()).toEqual(before);
    await expectError(
      await call("/api/user/acl-list", {
        method: "PATCH",
        bearer: boss.bearer,
        json: { delete: [old.rule_id], update: [{ rule_id: old.rule_id, acl: ["read"] }] },
      }),
      400,
    );
    await expectError(await call("/api/user/acl-list", { method: "PATCH", bearer: user.bearer, json: { delete: [old.rule_id] } }), 404);
    expect(await accessSnapshot()).toEqual(before);
  });
});

describe("evaluation through the library", () => {
  it("inherits down the tree, stops where inheritance is switched off, and lets deny override", async () => {
    const { boss, top, mid, leaf, asset } = await tree();
    const user = await ordinaryUser();
    await expectError(await call(`/api/group/get/${leaf}`, { bearer: user.bearer }), 404);
    await grant(boss, user.id, top, ["read", "download"]);
    expect(await levels(user.bearer, leaf)).toEqual(["read", "download"]);
    expect(await levels(user.bearer, asset)).toEqual(["read", "download"]);
    const members = await getJson<{ el_id: string }[]>(`/api/group/members/${leaf}`, user.bearer);
    expect(members.map((m) => m.el_id)).toEqual([asset]);
    // Readable but not deletable: 403, and nothing changes.
    expect((await send("DELETE", `/api/group/delete/${leaf}`, user.bearer)).status).toBe(403);
    expect((await send("DELETE", `/api/asset/${asset}`, user.bearer)).status).toBe(403);

    const res = await send("POST", `/api/auth/access-inheritance/${mid}`, boss.bearer, { inherit: false });
    expect(res).toMatchObject({ status: 200, body: { entity_id: mid, inherit: false } });
    expect(await getJson(`/api/auth/access-inheritance/${mid}`, boss.bearer)).toEqual({ entity_id: mid, inherit: false });
    expect(await levels(user.bearer, leaf)).toBe(404);
    expect(await levels(user.bearer, top)).toEqual(["read", "download"]);
    // The top passes read down, but mid switched inheritance off: the top's page leaves it out.
    expect((await getJson<{ el_id: string }[]>(`/api/group/members/${top}`, user.bearer)).map((m) => m.el_id)).toEqual([]);
    expect((await getJson<{ el_id: string }[]>(`/api/group/members/${top}`, boss.bearer)).map((m) => m.el_id)).toEqual([mid]);
    await send("POST", `/api/auth/access-inheritance/${mid}`, boss.bearer, { inherit: true });
    expect(await levels(user.bearer, asset)).toEqual(["read", "download"]);

    await grant(boss, user.id, leaf, ["deny"]);
    expect(await levels(user.bearer, leaf)).toBe(404);
    expect(await levels(user.bearer, asset)).toBe(404);
    expect(await levels(user.bearer, mid)).toEqual(["read", "download"]);
    const midMembers = await getJson<{ el_id: string }[]>(`/api/group/members/${mid}`, user.bearer);
    expect(midMembers).toEqual([]);
  });

  it("applies rules of a group of users to its members, and superuser implies every level", async () => {
    const { boss, top, leaf } = await tree();
    const team = await createGroup(boss, uniqueName("Команда"));
    const member = await ordinaryUser();
    const outsider = await ordinaryUser();
    await grant(boss, team, top, ["superuser"]);
    expect(await levels(member.bearer, leaf)).toBe(404);
    const added = await send<{ user_id: string }[]>("POST", `/api/group/users/${team}`, boss.bearer, { users: [member.id] });
    expect(added.status).toBe(200);
    expect(added.body.map((u) => u.user_id)).toEqual([member.id]);
    expect(await levels(member.bearer, leaf)).toEqual([
      "read",
      "update",
      "create",
      "delete",
      "acl",
      "group",
      "superuser",
      "download",
      "execute",
    ]);
    expect(await levels(outsider.bearer, leaf)).toBe(404);
    expect(await getJson<{ any_acls: boolean }>("/api/auth/whoami", member.bearer)).toMatchObject({ any_acls: true });
    expect(await getJson<{ any_acls: boolean }>("/api/auth/whoami", outsider.bearer)).toMatchObject({ any_acls: false });
    expect(await getJson<{ any_acls: boolean }>("/api/auth/user-abilities", member.bearer)).toMatchObject({ any_acls: true });
    expect((await getJson<{ group_id: string }[]>(`/api/user/memeber-of/${member.id}`, member.bearer)).map((g) => g.group_id)).toEqual([
      team,
    ]);
    expect((await getJson<{ rule_id: string; via_group: string }[]>(`/api/user/user-acl/${member.id}`, member.bearer))[0]).toMatchObject({
      via_group: team,
    });
    expect((await getJson<{ obj_id: string }[]>(`/api/user/group-acl/${team}`, boss.bearer)).map((r) => r.obj_id)).toEqual([top]);

    expect((await send("DELETE", `/api/group/users/${team}?users=${member.id}`, boss.bearer)).status).toBe(204);
    expect(await levels(member.bearer, leaf)).toBe(404);
    const actions = (await rows("SELECT action FROM audit_log WHERE object_id = ? ORDER BY ctime, id", team)).map((r) => r.action);
    // a group of users is a folder too: its creation is in its history before the membership changes
    expect(actions).toEqual(["group.create", "group.users_add", "group.users_remove"]);
  });

  it("confines a chrooted user to their chroot groups: root, members, search, checks", async () => {
    const boss = await admin();
    const marker = uniqueName("Клетка").replace(/\s/g, "");
    const inside = await createGroup(boss, `${marker} внутри`);
    const outside = await createGroup(boss, `${marker} снаружи`);
    const user = await ordinaryUser();
    await grant(boss, user.id, inside, ["read"]);
    await grant(boss, user.id, outside, ["read"]);
    const own = await createGroup(user, uniqueName("Своя"));
    await env.DB.prepare("UPDATE users SET chroot_groups = ? WHERE id = ?")
      .bind(JSON.stringify([inside]), user.id)
      .run();
    const roots = await getJson<{ group_id: string }[]>("/api/group/roots", user.bearer);
    expect(roots.map((g) => g.group_id)).toEqual([inside]);
    expect(
      (await getJson<{ group_id: string }[]>(`/api/group/search?q=${encodeURIComponent(marker)}`, user.bearer)).map((g) => g.group_id),
    ).toEqual([inside]);
    expect(await levels(user.bearer, outside)).toBe(404);
    expect(await levels(user.bearer, own)).toBe(404);
    await expectError(await call(`/api/group/members/${outside}`, { bearer: user.bearer }), 404);
    // A chrooted user cannot create top-level groups outside the chroot.
    expect((await send("POST", "/api/group/create", user.bearer, { parent: ROOT_GROUP_ID, group_name: uniqueName() })).status).toBe(403);
    expect(await getJson("/api/auth/user-abilities", user.bearer)).toMatchObject({ chrooted: true, abilities: { createGroups: false } });
  });

  it("lists only readable members and keeps key-based paging correct", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName());
    const user = await ordinaryUser();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const a = await insertAsset({ ownerId: boss.id, groups: [folder], name: `файл-${String(i).padStart(2, "0")}.mp4` });
      ids.push(a.id);
    }
    const readable = ids.filter((_, i) => i % 3 === 0);
    await grant(boss, user.id, folder, ["create"]);
    for (const id of readable) await grant(boss, user.id, id, ["read"]);
    // The folder itself is not readable: 404 on listing.
    await expectError(await call(`/api/group/members/${folder}`, { bearer: user.bearer }), 404);
    await grant(boss, user.id, (await createGroup(boss, "ещё", folder)) as string, ["read"]);
    const folderRule = (await rows("SELECT id FROM access_rules WHERE obj_id = ? AND subj_id = ?", folder, user.id))[0].id as string;
    await send("PATCH", `/api/user/acl/${folderRule}`, boss.bearer, { acl: ["create", "read"] });
    await grant(boss, user.id, ids[1], ["deny"]);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const q: string = after ? `&after=${encodeURIComponent(after)}` : "";
      const res = await call(`/api/group/members/${folder}?type=asset&take=2${q}`, { bearer: user.bearer });
      const page = (await res.json()) as { el_id: string }[];
      seen.push(...page.map((i) => i.el_id));
      after = res.headers.get("x-next-cursor");
    } while (after);
    expect(seen).toEqual(ids.filter((id) => id !== ids[1]));
  });
});

describe("access reads", () => {
  it("GET /api/user/entity-access/{id}: own and inherited rules, marked, up to the switch", async () => {
    const { boss, top, mid, asset } = await tree();
    const user = await ordinaryUser("Зритель");
    const onTop = await grant(boss, user.id, top, ["read"]);
    const onAsset = await grant(boss, user.id, asset, ["download"]);
    const answer = await getJson<{ inherit: boolean; rules: (Rule & { inherited: boolean; from: string })[] }>(
      `/api/user/entity-access/${asset}`,
      boss.bearer,
    );
    expect(answer.inherit).toBe(true);
    expect(answer.rules.map((r) => [r.rule_id, r.inherited, r.from])).toEqual([
      [onAsset.rule_id, false, asset],
      [onTop.rule_id, true, top],
    ]);
    expect(answer.rules[1]).toMatchObject({ subj_name: "Зритель" });
    await send("POST", `/api/auth/access-inheritance/${mid}`, boss.bearer, { inherit: false });
    const cut = await getJson<{ rules: Rule[] }>(`/api/user/entity-access/${asset}`, boss.bearer);
    expect(cut.rules.map((r) => r.rule_id)).toEqual([onAsset.rule_id]);
    // Without acl on the entity: 403 for a reader, 404 for a stranger.
    expect((await call(`/api/user/entity-access/${top}`, { bearer: user.bearer })).status).toBe(403);
    expect((await call(`/api/user/entity-access/${top}`, { bearer: (await ordinaryUser()).bearer })).status).toBe(404);
  });

  it("entity-user-access (GET and POST) and entity-acl-access", async () => {
    const { boss, top, leaf } = await tree();
    const user = await ordinaryUser();
    await grant(boss, user.id, top, ["read", "acl"]);
    expect(await getJson(`/api/auth/entity-user-access/${leaf}?user=${user.id}`, boss.bearer)).toEqual({
      entity: leaf,
      user: user.id,
      acl: ["read", "acl"],
    });
    const list = await send<{ acl: string[] }[]>("POST", "/api/auth/entity-user-access", user.bearer, [
      { entity: leaf, user: user.id },
      { entity: top, user: boss.id },
    ]);
    expect(list.status).toBe(200);
    expect(list.body[1].acl).toContain("superuser");
    expect(await getJson(`/api/auth/entity-acl-access/${leaf}`, user.bearer)).toEqual({
      entity_id: leaf,
      acl: true,
      grantable: ["deny", "read", "acl"],
    });
    const reader = await ordinaryUser();
    await grant(boss, reader.id, top, ["read"]);
    expect(await getJson(`/api/auth/entity-acl-access/${leaf}`, reader.bearer)).toMatchObject({ acl: false, grantable: [] });
    await expectError(await call(`/api/auth/entity-user-access/${leaf}?user=${user.id}`, { bearer: reader.bearer }), 403);
    await expectError(await call(`/api/auth/entity-user-access/${leaf}?user=${"8".repeat(32)}`, { bearer: boss.bearer }), 404);
    // Without a user the call answers for the caller (SPEC §7 sends no query); a reader needs no acl for that.
    expect(await getJson(`/api/auth/entity-user-access/${leaf}`, reader.bearer)).toEqual({ entity: leaf, user: reader.id, acl: ["read"] });
    const own = await send<{ user: string; acl: string[] }[]>("POST", "/api/auth/entity-user-access", reader.bearer, [{ entity: leaf }]);
    expect(own.body).toEqual([{ entity: leaf, user: reader.id, acl: ["read"] }]);
    await expectError(await call(`/api/auth/entity-user-access/${leaf}`, { bearer: (await ordinaryUser()).bearer }), 404);
    await expectError(await call(`/api/auth/entity-user-access/${leaf}?user=not-an-id`, { bearer: boss.bearer }), 400);
    await expectError(await call(`/api/auth/entity-acl-access/${leaf}`, { bearer: (await ordinaryUser()).bearer }), 404);
    await expectError(await call(`/api/auth/entity-access/${"9".repeat(32)}`, { bearer: boss.bearer }), 404);
  });

  it("access-inheritance: readers may read it, only acl holders switch it; audited", async () => {
    const { boss, mid } = await tree();
    const reader = await ordinaryUser();
    await grant(boss, reader.id, mid, ["read"]);
    expect(await getJson(`/api/auth/access-inheritance/${mid}`, reader.bearer)).toEqual({ entity_id: mid, inherit: true });
    const before = await accessSnapshot();
    await expectError(
      await call(`/api/auth/access-inheritance/${mid}`, { method: "POST", bearer: reader.bearer, json: { inherit: false } }),
      403,
    );
    await expectError(
      await call(`/api/auth/access-inheritance/${mid}`, { method: "POST", bearer: boss.bearer, json: { inherit: "no" } }),
      400,
    );
    expect(await accessSnapshot()).toEqual(before);
    await send("POST", `/api/auth/access-inheritance/${mid}`, boss.bearer, { inherit: false });
    expect((await rows("SELECT action FROM audit_log WHERE object_id = ? AND action = 'acl.inheritance'", mid)).length).toBe(1);
  });

  it("acl-roots and acl-assets list what the caller reaches through rules", async () => {
    const { boss, mid, leaf, asset } = await tree();
    const user = await ordinaryUser();
    await grant(boss, user.id, mid, ["read"]);
    const loose = await insertAsset({ ownerId: boss.id, groups: [await createGroup(boss, uniqueName())] });
    await grant(boss, user.id, loose.id, ["read"]);
    const roots = await getJson<{ group_id: string }[]>("/api/group/acl-roots", user.bearer);
    expect(roots.map((g) => g.group_id)).toEqual([mid]);
    expect(roots.map((g) => g.group_id)).not.toContain(leaf);
    const assets = await getJson<{ asset_id: string }[]>("/api/asset/acl-assets", user.bearer);
    expect(assets.map((a) => a.asset_id)).toEqual([loose.id]);
    expect(assets.map((a) => a.asset_id)).not.toContain(asset);
  });
});

describe("groups of users", () => {
  it("needs the group level: owners and administrators add and remove, others are refused and nothing changes", async () => {
    const boss = await admin();
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const team = await createGroup(owner, uniqueName("Отдел"));
    expect((await send("POST", `/api/group/users/${team}`, owner.bearer, { users: [stranger.id] })).status).toBe(200);
    expect((await getJson<{ user_id: string }[]>(`/api/group/users/${team}`, boss.bearer)).map((u) => u.user_id)).toEqual([stranger.id]);
    const before = await accessSnapshot();
    await expectError(
      await call(`/api/group/users/${team}`, { method: "POST", bearer: stranger.bearer, json: { users: [stranger.id] } }),
      404,
    );
    await grant(boss, stranger.id, team, ["read"]);
    const snapshot = await accessSnapshot();
    await expectError(await call(`/api/group/users/${team}?users=${stranger.id}`, { method: "DELETE", bearer: stranger.bearer }), 403);
    expect((await accessSnapshot()).userGroups).toEqual(snapshot.userGroups);
    expect(before.userGroups).toEqual(snapshot.userGroups);
    await expectError(
      await call(`/api/group/users/${team}`, { method: "POST", bearer: owner.bearer, json: { users: ["4".repeat(32)] } }),
      404,
    );
    await expectError(await call(`/api/group/users/${team}`, { method: "POST", bearer: owner.bearer, json: { users: [] } }), 400);
    await expectError(
      await call(`/api/group/users/${ROOT_GROUP_ID}`, { method: "POST", bearer: boss.bearer, json: { users: [owner.id] } }),
      400,
    );
    await expectError(await call(`/api/user/memeber-of/${owner.id}`, { bearer: stranger.bearer }), 403);
    await expectError(await call(`/api/user/user-acl/${owner.id}`, { bearer: stranger.bearer }), 403);
    await expectError(await call(`/api/user/group-acl/${team}`, { bearer: stranger.bearer }), 403);
    const listed = await getJson<{ group_id: string; users: number }[]>("/api/group/groups-with-users?take=500", boss.bearer);
    expect(listed.find((g) => g.group_id === team)).toMatchObject({ users: 1 });
  });
});
