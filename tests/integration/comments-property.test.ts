import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { dispatch, grant, mediaAsset, revoke } from "./comments-fixtures";
import { call, signIn, type Session, type TestUser } from "./factories";
import { propertyRuns } from "./property-runs";

/**
 * Comments and notifications under random sequences (decision 035): three people, two files of the first one's, and
 * random comment / mention / reply / follow / unfollow calls interleaved with read rules granted and taken away and
 * with dispatcher runs. A small independent model knows only who may read which file (the owner always; others while
 * they hold a read rule). After every step: a comment call succeeds exactly when the model says the caller reads the
 * file (404 otherwise, same as for no file); the comment list answers the same way; no inbox shows a notification
 * about a file its owner cannot read now; and every notification the dispatcher wrote went to someone who could read
 * the file at that moment.
 */

type Person = TestUser & Session;

type Step =
  | { op: "comment"; who: number; file: number; mention: number | null; reply: boolean }
  | { op: "grant"; who: number; file: number }
  | { op: "revoke"; who: number; file: number }
  | { op: "follow"; who: number; file: number; on: boolean }
  | { op: "dispatch" };

const person = fc.integer({ min: 0, max: 2 });
const file = fc.integer({ min: 0, max: 1 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant("comment" as const), who: person, file, mention: fc.option(person, { nil: null }), reply: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("grant" as const), who: fc.integer({ min: 1, max: 2 }), file }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("revoke" as const), who: fc.integer({ min: 1, max: 2 }), file }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("follow" as const), who: person, file, on: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ op: "dispatch" as const }) },
);

let people: Person[] = [];

beforeAll(async () => {
  people = [await signIn(), await signIn(), await signIn()];
});

describe("comments and notifications never reach someone who cannot read the file", () => {
  it("holds for random sequences of comment, mention, reply, follow calls and rule changes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 12 }), async (steps) => {
        const owner = people[0];
        const files = [(await mediaAsset(owner.id)).id, (await mediaAsset(owner.id)).id];
        // The model: rule ids of read grants per (person, file); the owner reads without one.
        const rules = new Map<string, string>();
        const reads = (who: number, f: number) => who === 0 || rules.has(`${who}:${f}`);
        const comments: string[][] = [[], []];
        const seen = new Set<string>();
        // Who could read which file at some moment since the last look: dispatches run in the background too (the
        // queue wake-up), so a row may have been planned just before a rule went away.
        let window = new Set<string>();
        const couldRead = (who: number, f: number) => who === 0 || window.has(`${who}:${f}`) || reads(who, f);

        const checkInboxes = async () => {
          // Everything the dispatcher wrote since the last look went to someone who could read the file then.
          const fresh = (
            await env.DB.prepare(
              "select id, user_id, asset_id from notifications where asset_id in (select value from json_each(?))",
            )
              .bind(JSON.stringify(files))
              .all<{ id: string; user_id: string; asset_id: string }>()
          ).results.filter((n) => !seen.has(n.id));
          for (const n of fresh) {
            seen.add(n.id);
            const who = people.findIndex((p) => p.id === n.user_id);
            expect(couldRead(who, files.indexOf(n.asset_id)), `notification ${n.id} to ${who} about file ${files.indexOf(n.asset_id)}`).toBe(true);
          }
          window = new Set(rules.keys());
          for (let who = 0; who < 3; who++) {
            const res = await call("/api/notifications?take=200", { bearer: people[who].bearer });
            const box = (await res.json()) as { items: { asset_id: string | null }[] };
            for (const item of box.items) {
              const f = files.indexOf(item.asset_id ?? "");
              if (f >= 0) expect(reads(who, f), `inbox of ${who} shows file ${f}`).toBe(true);
            }
          }
        };

        for (const step of steps) {
          if (step.op === "grant" && !rules.has(`${step.who}:${step.file}`)) {
            rules.set(`${step.who}:${step.file}`, await grant(people[step.who].id, files[step.file], ["read"]));
            window.add(`${step.who}:${step.file}`);
          } else if (step.op === "revoke") {
            const id = rules.get(`${step.who}:${step.file}`);
            if (id) await revoke(id);
            rules.delete(`${step.who}:${step.file}`);
          } else if (step.op === "comment") {
            const parent = step.reply ? comments[step.file].at(-1) : undefined;
            const mention = step.mention === null ? "" : ` @${people[step.mention].login}`;
            const res = await call(`/api/asset/${files[step.file]}/comments`, {
              method: "POST",
              bearer: people[step.who].bearer,
              json: { text: `заметка${mention}`, ...(parent ? { parent_id: parent } : {}) },
            });
            expect(res.status, await res.clone().text()).toBe(reads(step.who, step.file) ? 201 : 404);
            if (res.status === 201) comments[step.file].push(((await res.json()) as { comment_id: string }).comment_id);
          } else if (step.op === "follow") {
            const res = await call(`/api/asset/${files[step.file]}/follow`, { method: step.on ? "PUT" : "DELETE", bearer: people[step.who].bearer });
            expect(res.status).toBe(reads(step.who, step.file) ? 200 : 404);
          } else if (step.op === "dispatch") {
            await dispatch();
          }
          for (let who = 0; who < 3; who++) {
            for (let f = 0; f < 2; f++) {
              const res = await call(`/api/asset/${files[f]}/comments`, { bearer: people[who].bearer });
              expect(res.status, `comments of file ${f} for ${who}`).toBe(reads(who, f) ? 200 : 404);
              if (res.status === 200) expect(((await res.json()) as { total: number }).total).toBe(comments[f].length);
              else await res.body?.cancel();
            }
          }
          await checkInboxes();
        }
        await dispatch();
        await checkInboxes();
      }),
      { numRuns: propertyRuns(12) },
    );
  }, 600_000);
});
