import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { handleTaskBatch } from "../../workers/queue/consumer";
import { newId } from "../../workers/lib/ids";
import { DOCX_MIME, makeZip } from "../fixtures/office-docs";
import { rows } from "./asset-fixtures";
import { createUser, signIn } from "./factories";
import { getJson, insertStoredAsset, tasksOf, waitForTask } from "./task-fixtures";

const text = (s: string) => new TextEncoder().encode(s);

/** A queue batch as the runtime hands it over, recording what the consumer did with each message. */
function batchOf(bodies: unknown[]) {
  const outcome = new Map<string, "ack" | "retry">();
  const messages = bodies.map((body) => {
    const id = newId();
    return { id, body, attempts: 1, timestamp: new Date(), ack: () => outcome.set(id, "ack"), retry: () => outcome.set(id, "retry") };
  });
  const batch = { queue: "edge-mam-tasks", messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch<unknown>;
  return { batch, outcome, ids: messages.map((m) => m.id) };
}

describe("process-variant messages of one queue batch", () => {
  it("make one tech-fields task per owner for all their files, which indexes each file's text", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const a1 = await insertStoredAsset({ ownerId: alice.id, name: "первый.txt", mime: "text/plain", bytes: text("лодка на причале") });
    const a2 = await insertStoredAsset({ ownerId: alice.id, name: "второй.txt", mime: "text/plain", bytes: text("маяк в тумане") });
    const b1 = await insertStoredAsset({ ownerId: bob.id, name: "третий.txt", mime: "text/plain", bytes: text("чайки над морем") });
    const message = (a: { assetId: string; variantId: string }) => ({ op: "process-variant", assetId: a.assetId, variantId: a.variantId, version: 1 });
    const gone = { op: "process-variant", assetId: newId(), variantId: newId(), version: 1 };
    const { batch, outcome, ids } = batchOf([message(a1), message(a2), message(b1), gone]);

    await handleTaskBatch(batch, env);

    expect(ids.map((id) => outcome.get(id))).toEqual(["ack", "ack", "ack", "ack"]);
    const [t1, t2, t3] = await Promise.all([a1, a2, b1].map(async (a) => (await tasksOf(a.assetId)).filter((t) => t.operation_class === "tech-fields")));
    expect(t1).toHaveLength(1);
    expect(t2.map((t) => t.id)).toEqual([t1[0].id]);
    expect(t3).toHaveLength(1);
    expect(t3[0].id).not.toBe(t1[0].id);
    expect(t1[0].owner_id).toBe(alice.id);
    expect(t3[0].owner_id).toBe(bob.id);
    expect(JSON.parse(t1[0].affected)).toHaveLength(2);
    expect(t1[0].name).toContain("первый.txt и ещё 1");

    await Promise.all([waitForTask(t1[0].id, ["done"], 30_000), waitForTask(t3[0].id, ["done"], 30_000)]);
    const contents = await rows<{ asset_id: string; text: string }>(
      `select asset_id, text from search_content where asset_id in (?, ?, ?) order by text`,
      a1.assetId,
      a2.assetId,
      b1.assetId,
    );
    expect(contents.map((c) => c.text)).toEqual(["лодка на причале", "маяк в тумане", "чайки над морем"]);
  });

  it("end a hostile document's text stage as failed with the limit, once, while the other file of the task is done", async () => {
    const owner = await signIn();
    const plain = await insertStoredAsset({ ownerId: owner.id, name: "заметка.txt", mime: "text/plain", bytes: text("обычная заметка") });
    const laughs = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "ха"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>';
    const bomb = await insertStoredAsset({
      ownerId: owner.id,
      name: "смешки.docx",
      mime: DOCX_MIME,
      bytes: makeZip([{ name: "word/document.xml", text: laughs }]),
    });
    const message = (a: { assetId: string; variantId: string }) => ({ op: "process-variant", assetId: a.assetId, variantId: a.variantId, version: 1 });
    await handleTaskBatch(batchOf([message(plain), message(bomb)]).batch, env);

    const [task] = (await tasksOf(bomb.assetId)).filter((t) => t.operation_class === "tech-fields");
    const ended = await waitForTask(task.id, ["error", "done"], 30_000);
    expect(ended.status).toBe("error");
    expect(ended.attempts).toBe(0); // ended by the operation itself: never retried into the same wall
    expect(ended.error).toBe("Не обработано 1 из 2: подробности в журнале выше");
    const stages = async (v: string) =>
      JSON.parse((await rows<{ t: string }>(`select tech_fields as t from variants where id = ?`, v))[0].t).processing;
    expect(await stages(bomb.variantId)).toEqual({
      tech: { state: "not_applicable", reason: expect.stringContaining("нет технических данных") },
      text: { state: "failed", reason: "Файл слишком сложно распаковать: XML объявляет сущности (DOCTYPE/ENTITY): такие документы не читаются" },
      // The document's text-card preview (decision 029) reads it with the same extractor and fails the same way.
      preview: { state: "failed", reason: "Файл слишком сложно распаковать: XML объявляет сущности (DOCTYPE/ENTITY): такие документы не читаются" },
    });
    expect((await stages(plain.variantId)).text).toEqual({ state: "done" });
    const lines = await getJson<{ lines: { level: string; message: string }[] }>(`/api/tasklist/log/${task.id}?take=100`, owner.bearer);
    expect(lines.lines).toContainEqual(
      expect.objectContaining({ level: "error", message: expect.stringMatching(/^«смешки\.docx»: Файл слишком сложно распаковать: XML объявляет сущности/) }),
    );
  });
});
