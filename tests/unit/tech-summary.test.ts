import { describe, expect, it } from "vitest";
import { formatDuration, stagesOf, techRows } from "../../app/lib/tech-summary";

const byKey = (fields: Record<string, unknown>) => Object.fromEntries(techRows(fields).map((r) => [r.key, r]));

describe("techRows", () => {
  it("lists a photo's dimensions, camera, lens, exposure and place with an OpenStreetMap link", () => {
    const rows = byKey({
      mime: "image/jpeg",
      size: 1000,
      width: 6000,
      height: 4000,
      exif: {
        Make: "Canon",
        Model: "Canon EOS R5",
        LensModel: "RF24-70mm F2.8 L IS USM",
        ExposureTime: 0.004,
        FNumber: 2.8,
        ISO: 200,
        FocalLength: 50,
        DateTimeOriginal: "2026-07-01T10:20:00.000Z",
        latitude: 55.755826,
        longitude: 37.6173,
      },
    });
    expect(rows.dimensions.value).toBe("6000 × 4000 пикс.");
    expect(rows.camera.value).toBe("Canon EOS R5");
    expect(rows.lens.value).toBe("RF24-70mm F2.8 L IS USM");
    expect(rows.exposure.value).toBe("1/250 с · f/2.8 · ISO 200 · 50 мм");
    expect(rows.taken.value).toMatch(/2026/);
    expect(rows.gps.value).toBe("55.75583, 37.61730");
    expect(rows.gps.href).toBe("https://www.openstreetmap.org/?mlat=55.75583&mlon=37.61730#map=16/55.75583/37.61730");
  });

  it("lists a video's dimensions, duration, codecs and container", () => {
    const rows = byKey({ mime: "video/mp4", size: 1, width: 1920, height: 1080, duration: 3723.4, codecs: ["avc1.64001f", "mp4a.40.2"], container: "mp4" });
    expect(rows.dimensions.value).toBe("1920 × 1080 пикс.");
    expect(rows.duration.value).toBe("1:02:03");
    expect(rows.codecs.value).toBe("avc1.64001f, mp4a.40.2");
    expect(rows.container.value).toBe("mp4");
  });

  it("lists frame rate, sample rate, channels and bit rate of audio and video", () => {
    const rows = byKey({ mime: "video/webm", size: 1, frame_rate: 29.97, sample_rate: 48000, channels: 2, bit_rate: 2_450_000 });
    expect(rows.frame_rate.value).toBe("29.97 кадр/с");
    expect(rows.sample_rate.value).toBe("48 кГц");
    expect(rows.channels.value).toBe("стерео");
    expect(rows.bit_rate.value).toBe("2.5 Мбит/с");
    expect(byKey({ sample_rate: 8000, channels: 1, bit_rate: 128_000 })).toMatchObject({
      sample_rate: { value: "8 кГц" },
      channels: { value: "моно" },
      bit_rate: { value: "128 кбит/с" },
    });
  });

  it("names the maker when the model does not, and leaves out what the file lacks or what is malformed", () => {
    expect(byKey({ exif: { Make: "FUJIFILM", Model: "X-T5" } }).camera.value).toBe("FUJIFILM X-T5");
    expect(techRows({ mime: "text/plain", size: 5 })).toEqual([]);
    expect(techRows({})).toEqual([]);
    expect(techRows({ width: "wide", duration: -1, codecs: "h264", exif: { latitude: 200, longitude: 10 }, page_count: 0 })).toEqual([]);
  });

  it("counts a PDF's pages", () => {
    expect(byKey({ page_count: 12 }).pages.value).toBe("12");
  });
});

describe("formatDuration", () => {
  it("writes seconds as a clock", () => {
    expect(formatDuration(42)).toBe("0:42");
    expect(formatDuration(61.6)).toBe("1:02");
    expect(formatDuration(3723.4)).toBe("1:02:03");
  });
});

describe("processing stages (issue 25)", () => {
  it("reads each stage's outcome and treats a missing or malformed one as not ended", () => {
    expect(stagesOf({})).toEqual({});
    expect(
      stagesOf({
        processing: {
          tech: { state: "not_applicable", reason: "нет" },
          text: { state: "failed", reason: "Файл слишком сложно распаковать: …" },
          preview: { state: "processing" },
        },
      }),
    ).toEqual({
      tech: { state: "not_applicable", reason: "нет" },
      text: { state: "failed", reason: "Файл слишком сложно распаковать: …" },
    });
    expect(stagesOf({ processing: { text: { state: "done" } } })).toEqual({ text: { state: "done", reason: null } });
  });
});
