import { describe, expect, it } from "vitest";
import {
  centralDirectory,
  crc32,
  dataDescriptor,
  dosDateTime,
  localHeader,
  uniqueEntryName,
} from "../../workers/services/tasks/processing/zip-writer";

const enc = (s: string) => new TextEncoder().encode(s);

/** Reads a stored ZIP back (central directory → entries), the way an unzip tool does. */
function readZip(zip: Uint8Array) {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  expect(v.getUint32(end, true)).toBe(0x06054b50);
  const count = v.getUint16(end + 10, true);
  let at = v.getUint32(end + 16, true);
  const files: { name: string; crc: number; data: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    expect(v.getUint32(at, true)).toBe(0x02014b50);
    const crc = v.getUint32(at + 16, true);
    const size = v.getUint32(at + 24, true);
    const nameLength = v.getUint16(at + 28, true);
    const offset = v.getUint32(at + 42, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
    expect(v.getUint32(offset, true)).toBe(0x04034b50);
    const dataStart = offset + 30 + v.getUint16(offset + 26, true);
    files.push({ name, crc, data: zip.subarray(dataStart, dataStart + size) });
    at += 46 + nameLength;
  }
  return files;
}

describe("zip writer", () => {
  it("computes the standard CRC-32, also in pieces", () => {
    expect(crc32(0, enc("123456789"))).toBe(0xcbf43926);
    expect(crc32(crc32(0, enc("1234")), enc("56789"))).toBe(0xcbf43926);
    expect(crc32(0, new Uint8Array(0))).toBe(0);
  });

  it("writes an archive whose directory leads to each file's bytes", () => {
    const files = [
      { name: "Съёмка.txt", data: enc("привет") },
      { name: "b.bin", data: new Uint8Array([0, 1, 2, 255]) },
    ];
    const parts: Uint8Array[] = [];
    let offset = 0;
    const entries = files.map((f) => {
      const entry = { name: f.name, crc: crc32(0, f.data), size: f.data.length, offset, ...dosDateTime(Date.UTC(2026, 10, 1, 12, 30, 10)) };
      const header = localHeader(entry);
      parts.push(header, f.data, dataDescriptor(entry));
      offset += header.length + f.data.length + 16;
      return entry;
    });
    parts.push(centralDirectory(entries, offset));
    const zip = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      zip.set(p, at);
      at += p.length;
    }
    const read = readZip(zip);
    expect(read.map((f) => f.name)).toEqual(["Съёмка.txt", "b.bin"]);
    expect(new TextDecoder().decode(read[0].data)).toBe("привет");
    expect([...read[1].data]).toEqual([0, 1, 2, 255]);
    expect(read[1].crc).toBe(crc32(0, files[1].data));
  });

  it("encodes DOS times and clamps to 1980", () => {
    expect(dosDateTime(Date.UTC(2026, 10, 1, 12, 30, 10))).toEqual({
      dosTime: (12 << 11) | (30 << 5) | 5,
      dosDate: (46 << 9) | (11 << 5) | 1,
    });
    expect(dosDateTime(0).dosDate).toBe((0 << 9) | (1 << 5) | 1);
  });

  it("keeps entry names unique, case-insensitively, and free of path separators", () => {
    const taken = new Set<string>();
    expect(uniqueEntryName("a.jpg", taken)).toBe("a.jpg");
    expect(uniqueEntryName("A.JPG", taken)).toBe("A (2).JPG");
    expect(uniqueEntryName("a.jpg", taken)).toBe("a (3).jpg");
    expect(uniqueEntryName("../etc/passwd", taken)).toBe(".._etc_passwd");
    expect(uniqueEntryName("", taken)).toBe("file");
  });
});
