import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runTaskNow } from "../../workers/services/tasks/task-runner";
import { searchShardBindings } from "../../workers/db/search-shards";
import { ROOT_GROUP_ID, newId } from "../../workers/lib/ids";
import { addMember, exec, execOnSearch, indexRowsOf, indexed, insertGroup, rows, searchShards, testContext } from "./catalog-fixtures";
import { createDb } from "../../workers/db/client";
import { SearchLayoutError } from "../../workers/db/repositories/search-feed.repository";
import { feedIndex } from "../../workers/services/search";
import { expectConsoleError } from "../setup/fail-on-console-error";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { fixture } from "./processing-fixtures";
import { insertStoredAsset, postJson, waitForTask } from "./task-fixtures";

/**
 * The `reindex` of the virtual root rebuilds the whole search index (decision 040) from the catalog. In its own file
 * with a long limit: in a group's shared database "everything" is every file the group's earlier files made.
 */
const REBUILD_MS = 180_000;

describe("reindex of the root", () => {
  it(
    "rebuilds a lost search index from the catalog, files listed nowhere included; others may not start it",
    async () => {
      const user = await signIn();
      const admin = await signInAdmin();
      const group = await insertGroup({ ownerId: user.id });
      const tiny = fixture("tiny");
      const { assetId: listed } = await insertStoredAsset({ ownerId: user.id, name: "причал.jpg", mime: "image/jpeg", bytes: tiny });
      await addMember(group, listed);
      const { assetId: unfiled } = await insertStoredAsset({ ownerId: user.id, name: "буй.jpg", mime: "image/jpeg", bytes: tiny });
      await indexed();
      const exact = await indexRowsOf([group, listed, unfiled]);
      expect(exact.map((r) => r.id).sort()).toEqual([group, listed, unfiled].sort());

      // The SEARCH database lost (emptied, or a fresh one bound): nothing is found any more.
      await execOnSearch("delete from search_index");
      await execOnSearch("delete from search_doc_seq");
      expect(await indexRowsOf([group, listed, unfiled])).toEqual([]);

      const root = { entities: [{ id: ROOT_GROUP_ID, type: "group" }], options: { chunk_size: 500 } };
      await expectError(await call("/api/tasklist/enqueue-task/reindex", { method: "POST", bearer: user.bearer, json: root }), 403);
      const { job_id } = await postJson<{ job_id: string }>("/api/tasklist/enqueue-task/reindex", admin.bearer, root);
      await runTaskNow(testContext(), job_id);
      expect((await waitForTask(job_id, ["done", "error"], REBUILD_MS)).status).toBe("done");
      await indexed();
      expect(await indexRowsOf([group, listed, unfiled])).toEqual(exact);
    },
    REBUILD_MS + 30_000,
  );

  it.skipIf(searchShardBindings(env).length === 1)(
    "after the number of shards changed, finds each file once meanwhile and moves every document to its shard",
    async () => {
      const user = await signIn();
      const admin = await signInAdmin();
      const group = await insertGroup({ ownerId: user.id });
      const word = `шхуна${newId().slice(-5).replace(/\d/g, "ю")}`;
      const files: string[] = [];
      for (let i = 0; i < 8; i++) {
        const { assetId } = await insertStoredAsset({
          ownerId: user.id,
          name: `${word} ${i}.jpg`,
          mime: "image/jpeg",
          bytes: fixture("tiny"),
        });
        await addMember(group, assetId);
        files.push(assetId);
      }
      await indexed();
      const shards = searchShardBindings(env);
      // As one shard left it: every document in SEARCH; one of them also where it belongs now.
      for (const [i, shard] of shards.entries()) {
        if (i === 0) continue;
        const held = await shard.prepare("select rowid as doc_id, name, meta, content, acl from search_index").all();
        const seqs = await shard.prepare("select doc_id, seq from search_doc_seq").all();
        await shards[0].batch([
          shards[0]
            .prepare(
              "insert into search_index (rowid, name, meta, content, acl) select json_extract(value, '$.doc_id'), json_extract(value, '$.name'), json_extract(value, '$.meta'), json_extract(value, '$.content'), json_extract(value, '$.acl') from json_each(?)",
            )
            .bind(JSON.stringify(held.results)),
          shards[0]
            .prepare(
              "insert into search_doc_seq (doc_id, seq) select json_extract(value, '$.doc_id'), json_extract(value, '$.seq') from json_each(?)",
            )
            .bind(JSON.stringify(seqs.results)),
        ]);
        if (i > 1) await shard.batch([shard.prepare("delete from search_index"), shard.prepare("delete from search_doc_seq")]);
      }
      const found = async () => {
        const res = await call(`/api/search/query/${encodeURIComponent(word)}?take=100`, { bearer: admin.bearer });
        const body = (await res.json()) as { total: number; hits: { id: string }[] };
        expect(res.status, JSON.stringify(body)).toBe(200);
        return { total: body.total, ids: body.hits.map((h) => h.id).sort() };
      };
      await exec("update search_epoch set n = n + 1 where id = 1");
      expect(await found()).toEqual({ total: files.length, ids: [...files].sort() });

      const root = { entities: [{ id: ROOT_GROUP_ID, type: "group" }], options: { chunk_size: 500 } };
      const { job_id } = await postJson<{ job_id: string }>("/api/tasklist/enqueue-task/reindex", admin.bearer, root);
      await runTaskNow(testContext(), job_id);
      expect((await waitForTask(job_id, ["done", "error"], REBUILD_MS)).status).toBe("done");
      for (const [i, shard] of shards.entries()) {
        const held = await shard
          .prepare("select rowid as doc_id from search_index union select doc_id from search_doc_seq")
          .all<{ doc_id: number }>();
        expect(held.results.filter((r) => r.doc_id % shards.length !== i)).toEqual([]);
      }
      expect(await found()).toEqual({ total: files.length, ids: [...files].sort() });
      expect((await indexRowsOf(files)).map((r) => r.id).sort()).toEqual([...files].sort());
    },
    REBUILD_MS + 30_000,
  );

  it(
    "a Worker binding another number of shards writes nothing to the index until the root reindex records its number",
    async () => {
      const user = await signIn();
      const admin = await signInAdmin();
      const group = await insertGroup({ ownerId: user.id });
      await indexed();
      const shards = searchShardBindings(env).length;
      const layout = async () => (await rows<{ shards: number }>("select shards from search_layout where id = 1"))[0]?.shards;
      expect(await layout()).toBe(shards);
      // Documents written for one shard more than this Worker binds (a partial rollout).
      await exec("update search_layout set shards = ? where id = 1", shards + 1);
      const word = `лоцман${newId().slice(-5).replace(/\d/g, "щ")}`;
      const { assetId } = await insertStoredAsset({ ownerId: user.id, name: `${word}.jpg`, mime: "image/jpeg", bytes: fixture("tiny") });
      await addMember(group, assetId);
      await expect(feedIndex(createDb(env.DB), searchShards(), { deadline: Date.now() + 5_000 })).rejects.toBeInstanceOf(SearchLayoutError);
      expect(await indexRowsOf([assetId])).toEqual([]);
      // A search still answers (from what is indexed), its catch-up logged; the file waits, marked.
      const logged = expectConsoleError();
      const res = await call(`/api/search/query/${encodeURIComponent(word)}`, { bearer: admin.bearer });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { hits: unknown[] }).hits).toEqual([]);
      expect(logged.mock.calls.map((c) => String(c[0])).join("\n")).toContain("SearchLayoutError");
      expect((await rows<{ n: number }>("select count(*) as n from search_pending"))[0]?.n).toBeGreaterThan(0);

      const root = { entities: [{ id: ROOT_GROUP_ID, type: "group" }], options: { chunk_size: 500 } };
      const { job_id } = await postJson<{ job_id: string }>("/api/tasklist/enqueue-task/reindex", admin.bearer, root);
      await runTaskNow(testContext(), job_id);
      expect((await waitForTask(job_id, ["done", "error"], REBUILD_MS)).status).toBe("done");
      expect(await layout()).toBe(shards);
      await indexed();
      expect((await indexRowsOf([assetId])).map((r) => r.id)).toEqual([assetId]);
    },
    REBUILD_MS + 30_000,
  );
});
