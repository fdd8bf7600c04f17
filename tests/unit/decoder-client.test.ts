import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { DECODER_TIMEOUT_MS, decode, type DecoderAnswer } from "../../workers/lib/decoder";
import { AppError } from "../../workers/lib/errors";

/** An Env whose DECODER binding is the given object (only `decode` reads it). */
const envWith = (decoder: unknown) => ({ DECODER: decoder }) as unknown as Env;

afterEach(() => {
  vi.useRealTimers();
});

describe("decode(): the API Worker's side of the DECODER binding (decision 032)", () => {
  it("answers the value of an accepted call", async () => {
    await expect(decode(envWith({}), async () => ({ ok: true, value: 42 }) satisfies DecoderAnswer<number>)).resolves.toBe(42);
  });

  it("turns a refusal back into the AppError the parser threw: same status and Russian message", async () => {
    const refusal = { ok: false, code: "PAYLOAD_TOO_LARGE", message: "Файл слишком сложно распаковать: …" } as const;
    const error = await decode(envWith({}), async () => refusal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413, message: refusal.message });
  });

  it("lets an exception in the media Worker through (the route's 500, as before)", async () => {
    await expect(decode(envWith({}), () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("never hangs: no answer within DECODER_TIMEOUT_MS is a 503 with the reason", async () => {
    vi.useFakeTimers();
    const pending = decode(envWith({}), () => new Promise<DecoderAnswer<number>>(() => {})).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(DECODER_TIMEOUT_MS);
    const error = await pending;
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 503, message: ru.parse.decoderTimeout(DECODER_TIMEOUT_MS / 1000) });
  });

  it("calls the DECODER binding it is given", async () => {
    const decoder = { ping: vi.fn(async () => ({ ok: true, value: "pong" }) as const) };
    await decode(envWith(decoder), (d) => (d as unknown as typeof decoder).ping());
    expect(decoder.ping).toHaveBeenCalledOnce();
  });
});
