import { describe, expect, it } from "vitest";
import { ApiError } from "../../app/lib/api-error";
import { loadFailure } from "../../app/lib/load-failure";

describe("loadFailure", () => {
  it("answers 'unavailable' for a missing or forbidden object, alike, so the page never tells which", () => {
    expect(loadFailure(new ApiError(404, { message: "Папка не найдена" }, "Папка не найдена"))).toBe("unavailable");
    expect(loadFailure(new ApiError(403, { message: "Нет доступа" }, "Нет доступа"))).toBe("unavailable");
    expect(loadFailure(new ApiError(400, { message: "bad id" }, "bad id"))).toBe("unavailable");
  });

  it("answers 'failed' for what may pass on a retry: a server error, a network error, anything else", () => {
    expect(loadFailure(new ApiError(500, null, "Ошибка на сервере"))).toBe("failed");
    expect(loadFailure(new ApiError(429, null, "Слишком много запросов"))).toBe("failed");
    expect(loadFailure(new TypeError("Failed to fetch"))).toBe("failed");
    expect(loadFailure(undefined)).toBe("failed");
  });
});
