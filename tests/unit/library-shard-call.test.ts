import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { answerFromShard, callShard } from "../../workers/db/library-shard-call";
import { AppError } from "../../workers/lib/errors";
import { expectConsoleError } from "../setup/fail-on-console-error";

/** The same envelope across a structured clone, as Workers RPC carries it (an exception would lose its class). */
const acrossRpc = async <T>(answer: Promise<T>): Promise<T> => structuredClone(await answer);

describe("a call to a library shard", () => {
  it("brings back the value, and a refusal as the same AppError with its headers", async () => {
    expect(await callShard("Архив", () => acrossRpc(answerFromShard(async () => ({ items: [1, 2] }))))).toEqual({ items: [1, 2] });
    const refused = await callShard("Архив", () =>
      acrossRpc(
        answerFromShard(async () => {
          throw new AppError("CONFLICT", "Папка «Клипы» уже есть в этой папке", { "X-Conflict": "name" });
        }),
      ),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: "CONFLICT",
      status: 409,
      message: "Папка «Клипы» уже есть в этой папке",
      headers: { "X-Conflict": "name" },
    });
  });

  it("keeps a fault in the shard's code a fault (the runtime marks it remote): no 4xx or 503 hides a bug", async () => {
    await expect(
      answerFromShard(async () => {
        throw new TypeError("x is undefined");
      }),
    ).rejects.toThrow(TypeError);
    const fault = Object.assign(new Error("x is undefined"), { remote: true });
    const thrown = await callShard("Архив", () => Promise.reject(fault)).catch((error: unknown) => error);
    expect(thrown).toBe(fault);
  });

  it("answers 503 naming the library when the shard gives no answer, and logs the cause", async () => {
    const logged = expectConsoleError();
    const lost = Object.assign(new Error("Network connection lost."), { retryable: true });
    const thrown = await callShard("Архив 2024", () => Promise.reject(lost)).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      status: 503,
      message: ru.groups.libraryDown("Архив 2024"),
      headers: { "Retry-After": "5" },
    });
    expect(ru.groups.libraryDown("Архив 2024")).toContain("«Архив 2024»");
    expect(String(logged.mock.calls[0]?.[0])).toContain("Network connection lost.");
  });
});
