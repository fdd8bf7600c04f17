import { DurableObject } from "cloudflare:workers";

const encoder = new TextEncoder();

/** Comment lines keep idle proxies from closing a quiet stream; the browser ignores them. */
const HEARTBEAT_MS = 25_000;

/**
 * Live delivery of one user's inbox (decision 035), one object per user (named by the user id). Responsibilities:
 * hold that user's open Server-Sent Event streams and tell each of them «something new» when the dispatcher has
 * written notifications for him. The message carries no content: the browser reads its inbox through the API, where
 * the rights are checked, so nothing about a file travels through this object.
 */
export class NotificationHubDO extends DurableObject<Env> {
  private writers = new Set<WritableStreamDefaultWriter<Uint8Array>>();

  /** A new stream (the API has checked who asks and names the object after him). */
  async fetch(request: Request): Promise<Response> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    this.writers.add(writer);
    request.signal.addEventListener("abort", () => this.drop(writer));
    void this.send(writer, "retry: 5000\n: open\n\n");
    if (this.writers.size === 1) await this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS);
    return new Response(readable, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
    });
  }

  /** Tells every open stream that the inbox changed; answers how many streams heard it. */
  async notify(unreadHint: number): Promise<number> {
    const line = `event: inbox\ndata: ${JSON.stringify({ new: unreadHint })}\n\n`;
    await Promise.all([...this.writers].map((w) => this.send(w, line)));
    return this.writers.size;
  }

  async alarm(): Promise<void> {
    await Promise.all([...this.writers].map((w) => this.send(w, ": ping\n\n")));
    if (this.writers.size > 0) await this.ctx.storage.setAlarm(Date.now() + HEARTBEAT_MS);
  }

  private async send(writer: WritableStreamDefaultWriter<Uint8Array>, text: string): Promise<void> {
    try {
      await writer.write(encoder.encode(text));
    } catch {
      this.drop(writer);
    }
  }

  private drop(writer: WritableStreamDefaultWriter<Uint8Array>): void {
    if (!this.writers.delete(writer)) return;
    writer.close().catch(() => {});
  }
}
