import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { OPEN_AHEAD_MAX_BYTES, uniqueEntryPath, zipStream, type ZipSource } from "../../workers/lib/zip-stream";

const enc = (s: string) => new TextEncoder().encode(s);
const streamOf = (bytes: Uint8Array<ArrayBuffer>) => new Response(bytes).body!;
const source = (path: string, bytes: Uint8Array<ArrayBuffer> | null): ZipSource => ({
  path,
  lastModified: Date.UTC(2026, 10, 1),
  open: async () => (bytes ? streamOf(bytes) : null),
});

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Reads a stream to its end keeping only the byte count and the last `keep` bytes (for archives too big to hold). */
async function tail(stream: ReadableStream<Uint8Array>, keep: number): Promise<{ length: number; end: Uint8Array }> {
  const reader = stream.getReader();
  let length = 0;
  let end = new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    const joined = new Uint8Array(end.length + value.length);
    joined.set(end);
    joined.set(value, end.length);
    end = joined.slice(Math.max(0, joined.length - keep));
  }
  return { length, end };
}

describe("the ZIP writer", () => {
  it("names entries uniquely per folder, case-insensitively, with no way out of the archive", () => {
    const taken = new Set<string>();
    expect(uniqueEntryPath("", "a.jpg", taken)).toBe("a.jpg");
    expect(uniqueEntryPath("", "A.JPG", taken)).toBe("A (2).JPG");
    expect(uniqueEntryPath("", "a.jpg", taken)).toBe("a (3).jpg");
    expect(uniqueEntryPath("Съёмка", "a.jpg", taken)).toBe("Съёмка/a.jpg");
    expect(uniqueEntryPath("", "../etc/passwd", taken)).toBe(".._etc_passwd");
    expect(uniqueEntryPath("", "..", taken)).toBe("_");
    expect(uniqueEntryPath("", "", taken)).toBe("_ (2)");
  });

  it("streams files and the trailer into an archive fflate reads back; a missing object is reported, not written", async () => {
    const missing: string[] = [];
    const zip = await collect(
      zipStream([source("Съёмка/привет.txt", enc("привет")), source("b.bin", new Uint8Array([0, 1, 2, 255])), source("нет.jpg", null)], {
        onMissing: (s) => missing.push(s.path),
        trailer: { path: "ПРОПУЩЕНО.txt", text: () => missing.join("\n") },
      }),
    );
    const files = unzipSync(zip);
    expect(Object.keys(files)).toEqual(["Съёмка/привет.txt", "b.bin", "ПРОПУЩЕНО.txt"]);
    expect(new TextDecoder().decode(files["Съёмка/привет.txt"])).toBe("привет");
    expect([...files["b.bin"]]).toEqual([0, 1, 2, 255]);
    expect(new TextDecoder().decode(files["ПРОПУЩЕНО.txt"])).toBe("нет.jpg");
  });

  it("writes the CRC-32 of each entry into its data descriptor and its central directory record", async () => {
    // The check value of CRC-32 (ISO-HDLC): "123456789" → 0xCBF43926; the empty input → 0.
    const zip = await collect(zipStream([source("check.txt", enc("123456789")), source("empty.txt", new Uint8Array(0))]));
    const v = new DataView(zip.buffer);
    const crcs = (signature: number, at: number) => {
      const out: number[] = [];
      for (let i = 0; i + 4 <= zip.length; i++) if (v.getUint32(i, true) === signature) out.push(v.getUint32(i + at, true));
      return out;
    };
    expect(crcs(0x08074b50, 4)).toEqual([0xcbf43926, 0]);
    expect(crcs(0x02014b50, 16)).toEqual([0xcbf43926, 0]);
  });

  it("opens each small file one ahead of the writer, never more than two at once, and closes them if the archive is cancelled", async () => {
    const opened: string[] = [];
    let held = 0;
    let mostHeld = 0;
    const megabyte = (path: string): ZipSource => ({
      path,
      lastModified: Date.UTC(2026, 10, 1),
      open: async () => {
        opened.push(path);
        held++;
        mostHeld = Math.max(mostHeld, held);
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < 16) return controller.enqueue(new Uint8Array(64 * 1024).fill(1));
            controller.close();
            held--;
          },
          cancel() {
            held--;
          },
        });
      },
    });
    const names = Array.from({ length: 8 }, (_, i) => `clip-${i}.mov`);
    const files = unzipSync(await collect(zipStream(names.map(megabyte))));
    expect(Object.keys(files)).toEqual(names);
    expect(opened).toEqual(names);
    expect(mostHeld).toBe(2);
    expect(held).toBe(0);

    // Cancelled in the middle of the second file: it and the third (opened ahead) are closed, nothing else opened.
    opened.length = 0;
    const reader = zipStream(names.map(megabyte)).getReader();
    let bytes = 0;
    while (bytes < 1.5 * 1024 * 1024) bytes += (await reader.read()).value?.length ?? Infinity;
    await reader.cancel();
    expect(opened).toEqual(names.slice(0, 3));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(held).toBe(0);

    // Files that declare OPEN_AHEAD_MAX_BYTES or more are opened at their turn only: never two bodies at once.
    opened.length = 0;
    mostHeld = 0;
    const large = names.map((name) => ({ ...megabyte(name), size: OPEN_AHEAD_MAX_BYTES }));
    expect(Object.keys(unzipSync(await collect(zipStream(large))))).toEqual(names);
    expect(mostHeld).toBe(1);
  });

  it("writes Zip64 when an archive holds more than 65,535 entries", async () => {
    const count = 65_600;
    const sources = Array.from({ length: count }, (_, i) => source(`f${i}.txt`, enc(String(i))));
    const zip = await collect(zipStream(sources));
    const v = new DataView(zip.buffer);
    // The classic end record saturates its count; the Zip64 end record (before its locator) has the real one.
    expect(v.getUint16(zip.length - 22 + 10, true)).toBe(0xffff);
    const locator = zip.length - 22 - 20;
    expect(v.getUint32(locator, true)).toBe(0x07064b50);
    const end64 = Number(v.getBigUint64(locator + 8, true));
    expect(v.getUint32(end64, true)).toBe(0x06064b50);
    expect(Number(v.getBigUint64(end64 + 32, true))).toBe(count);
    const files = unzipSync(zip, { filter: (f) => f.name === "f65599.txt" || f.name === "f0.txt" });
    expect(new TextDecoder().decode(files["f65599.txt"])).toBe("65599");
  }, 180_000);

  it("writes Zip64 sizes and offsets for an entry larger than 4 GiB (a synthetic stream, never held in memory)", async () => {
    const chunk = new Uint8Array(4 * 1024 * 1024).fill(7);
    const chunks = 1025; // 4 GiB + 4 MiB
    const big: ZipSource = {
      path: "rushes.mov",
      lastModified: Date.UTC(2026, 10, 1),
      open: async () => {
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < chunks) controller.enqueue(chunk);
            else controller.close();
          },
        });
      },
    };
    const { length, end } = await tail(zipStream([big, source("after.txt", enc("после"))]), 4096);
    const size = chunk.length * chunks;
    expect(length).toBeGreaterThan(size);
    const v = new DataView(end.buffer);
    const locator = end.length - 22 - 20;
    expect(v.getUint32(locator, true)).toBe(0x07064b50);
    // The central directory record of the big entry: 32-bit fields saturated, the Zip64 extra field has the real size.
    const text = new TextDecoder("latin1").decode(end);
    const at = text.indexOf("PK\u0001\u0002");
    expect(at).toBeGreaterThanOrEqual(0);
    expect(v.getUint32(at + 20, true)).toBe(0xffffffff);
    const nameLength = v.getUint16(at + 28, true);
    const extra = at + 46 + nameLength;
    expect(v.getUint16(extra, true)).toBe(0x0001);
    const sizes = [Number(v.getBigUint64(extra + 4, true)), Number(v.getBigUint64(extra + 12, true))];
    expect(sizes).toContain(size);
  }, 300_000);
});
