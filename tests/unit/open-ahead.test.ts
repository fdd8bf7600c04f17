import { describe, expect, it } from "vitest";
import { openAhead } from "../../workers/lib/open-ahead";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Items 0…count-1 whose bodies are tracked: opened, closed (by the caller or by `discard`), and the most held at once. */
function tracked(count: number) {
  const log: string[] = [];
  let held = 0;
  let mostHeld = 0;
  let sourceClosed = false;
  async function* items() {
    try {
      for (let i = 0; i < count; i++) yield i;
    } finally {
      sourceClosed = true;
    }
  }
  const open = async (i: number) => {
    await tick();
    log.push(`open ${i}`);
    held++;
    mostHeld = Math.max(mostHeld, held);
    return { id: i };
  };
  const close = (body: { id: number }, how = "close") => {
    log.push(`${how} ${body.id}`);
    held--;
  };
  return { items, open, close, log, state: () => ({ held, mostHeld, sourceClosed }) };
}

describe("openAhead (the next object's GET while the current one streams)", () => {
  it("hands items on in order with the next one already opened, never holding more than `ahead` + 1 bodies", async () => {
    const t = tracked(6);
    const seen: number[] = [];
    for await (const { item, body } of openAhead(t.items(), t.open, 1, (b) => t.close(b, "discard"))) {
      expect(body.id).toBe(item);
      seen.push(item);
      // While the caller reads this body, the next object is opened (not after it).
      await tick();
      await tick();
      if (item < 5) expect(t.log).toContain(`open ${item + 1}`);
      expect(t.log).not.toContain(`open ${item + 2}`);
      t.close(body);
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    expect(t.log.filter((e) => e.startsWith("open"))).toEqual(["open 0", "open 1", "open 2", "open 3", "open 4", "open 5"]);
    expect(t.state()).toEqual({ held: 0, mostHeld: 2, sourceClosed: true });
  });

  it("with nothing ahead, opens each item only once the one before it is handed on", async () => {
    const t = tracked(4);
    for await (const { item, body } of openAhead(t.items(), t.open, 0, (b) => t.close(b, "discard"))) {
      await tick();
      await tick();
      expect(t.log).not.toContain(`open ${item + 1}`);
      t.close(body);
    }
    expect(t.state().mostHeld).toBe(1);
  });

  it("opens an item `early` refuses only at its turn, the others still ahead", async () => {
    const t = tracked(6);
    const big = (i: number) => i === 2 || i === 3;
    for await (const { item, body } of openAhead(
      t.items(),
      t.open,
      1,
      (b) => t.close(b, "discard"),
      (i) => !big(i),
    )) {
      await tick();
      await tick();
      // The next one is open already unless it is big; a big one is opened only once the one before it is handed on.
      if (item < 5) expect(t.log.includes(`open ${item + 1}`)).toBe(!big(item + 1));
      t.close(body);
    }
    expect(t.log.filter((e) => e.startsWith("open"))).toEqual(["open 0", "open 1", "open 2", "open 3", "open 4", "open 5"]);
    expect(t.state().held).toBe(0);
  });

  it("a caller that stops early gets the bodies opened ahead discarded and the items' iterator closed", async () => {
    const t = tracked(10);
    for await (const { item, body } of openAhead(t.items(), t.open, 2, (b) => t.close(b, "discard"))) {
      t.close(body);
      if (item === 3) break;
    }
    await tick();
    expect(t.log.filter((e) => e.startsWith("discard"))).toEqual(["discard 4", "discard 5"]);
    expect(t.state()).toMatchObject({ held: 0, sourceClosed: true });
    expect(t.log).not.toContain("open 6");
  });

  it("a failed open surfaces when the caller reaches it, after the items before it", async () => {
    const open = async (i: number) => {
      if (i === 2) throw new Error("R2 is down");
      return i;
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const { item } of openAhead([0, 1, 2, 3], open, 1, () => undefined)) seen.push(item);
      })(),
    ).rejects.toThrow("R2 is down");
    expect(seen).toEqual([0, 1]);
  });
});
