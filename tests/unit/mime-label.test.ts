import { describe, expect, it } from "vitest";
import { mimeLabel } from "../../app/lib/mime-label";

describe("mimeLabel", () => {
  it.each([
    ["image/jpeg", "Изображение JPEG"],
    ["image/png", "Изображение PNG"],
    ["image/svg+xml", "Изображение SVG"],
    ["video/mp4", "Видео MP4"],
    ["video/webm", "Видео WEBM"],
    ["video/quicktime", "Видео MOV"],
    ["audio/mpeg", "Аудио MP3"],
    ["application/pdf", "Документ PDF"],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Документ Word"],
    ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Таблица Excel"],
    ["application/vnd.openxmlformats-officedocument.presentationml.presentation", "Презентация PowerPoint"],
    ["application/zip", "Архив ZIP"],
    ["application/x-7z-compressed", "Архив 7Z"],
    ["application/json", "Данные JSON"],
    ["text/plain", "Текст"],
    ["text/plain; charset=utf-8", "Текст"],
    ["TEXT/CSV", "Таблица CSV"],
    ["application/octet-stream", "Двоичный файл"],
  ])("%s → %s", (mime, label) => {
    expect(mimeLabel(mime)).toBe(label);
  });

  it("names an unlisted type by its kind and a readable format, not a cut-off subtype", () => {
    expect(mimeLabel("image/x-portable-pixmap")).toBe("Изображение PORTABLE-PIXMAP");
    expect(mimeLabel("application/vnd.apple.keynote")).toBe("Файл KEYNOTE");
    expect(mimeLabel("model/gltf+json")).toBe("3D-модель GLTF");
  });

  it("answers «Файл» for a missing or unreadable type", () => {
    expect(mimeLabel(null)).toBe("Файл");
    expect(mimeLabel("")).toBe("Файл");
    expect(mimeLabel("garbage")).toBe("Файл");
    expect(mimeLabel("example/thing")).toBe("Файл");
  });
});
