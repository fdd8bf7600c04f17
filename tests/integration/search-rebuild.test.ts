import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { runTaskNow } from "../../workers/services/tasks/task-runner";
import { addMember, indexRowsOf, indexed, insertGroup, testContext } from "./catalog-fixtures";
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
      await env.SEARCH.batch([env.SEARCH.prepare("delete from search_index"), env.SEARCH.prepare("delete from search_doc_seq")]);
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
});
