import { apiRequest } from "../api-client";
import { readTokens } from "../tokens";
import type { NewUploadItem, UploadItem, UploadPatch } from "./types";

/**
 * The per-user upload queue on the server (a Durable Object behind /api/uploads): REST calls and the WebSocket that
 * pushes every change to every tab.
 */

export interface QueueListing {
  items: UploadItem[];
  /** every item is completed or error */
  finished: boolean;
  /** id of the item the queue would start next, or null */
  next: string | null;
}

export const listUploads = (signal?: AbortSignal) => apiRequest<QueueListing>("/api/uploads", { toast: false, signal });

export const addUploads = (items: NewUploadItem[]) =>
  apiRequest<{ items: UploadItem[] } | UploadItem[]>("/api/uploads", { method: "POST", body: { items } });

export const patchUpload = (id: string, patch: UploadPatch) =>
  apiRequest<UploadItem>(`/api/uploads/${encodeURIComponent(id)}`, { method: "PATCH", body: patch, toast: false });

/** Reports per POST /api/uploads/report (the queue's `maxReportBatch`). */
export const MAX_REPORTS = 500;

export type ReportResult = { id: string; status: 200; item: UploadItem } | { id: string; status: 404 | 409; message: string };

export const reportUploads = async (reports: { id: string; patch: UploadPatch }[]) =>
  (await apiRequest<{ results: ReportResult[] }>("/api/uploads/report", { method: "POST", body: { reports }, toast: false })).results;

export const keepAliveUploads = (ids: string[]) => apiRequest("/api/uploads/keepalive", { method: "POST", body: { ids }, toast: false });

export const removeUpload = (id: string) => apiRequest(`/api/uploads/${encodeURIComponent(id)}`, { method: "DELETE", toast: false });

export const clearUploads = () => apiRequest("/api/uploads/clear", { method: "POST", toast: false });

/** A message of the queue's WebSocket. */
export type QueueSocketMessage =
  | { type: "snapshot"; items: UploadItem[] }
  | { type: "item"; item: UploadItem }
  | { type: "removed"; id: string };

function isSocketMessage(value: unknown): value is QueueSocketMessage {
  if (!value || typeof value !== "object" || !("type" in value)) return false;
  const type = (value as { type: unknown }).type;
  return type === "snapshot" || type === "item" || type === "removed";
}

export interface QueueSocket {
  close(): void;
}

/**
 * Keeps a WebSocket to /api/uploads/ws open while signed in: reconnects with a growing delay (1 s … 30 s), and calls
 * `onState(true)` once the first snapshot arrived (until then the caller polls instead). Before each connection
 * `prepare` makes an ordinary API call (which refreshes an expired token), so the socket never tries a token the
 * server would refuse.
 */
export function openQueueSocket(
  onMessage: (message: QueueSocketMessage) => void,
  onState: (connected: boolean) => void,
  prepare: () => Promise<boolean>,
): QueueSocket {
  let socket: WebSocket | null = null;
  let closed = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = () => {
    if (closed) return;
    const delay = Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5));
    attempt += 1;
    timer = setTimeout(connect, delay);
  };

  async function connect() {
    if (closed) return;
    const ready = await prepare().catch(() => false);
    const bearer = readTokens().bearer;
    if (!ready || !bearer || closed) return schedule();
    const url = new URL("/api/uploads/ws", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("token", bearer);
    const ws = new WebSocket(url);
    socket = ws;
    ws.onmessage = (event) => {
      let data: unknown;
      try {
        data = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (!isSocketMessage(data)) return;
      if (data.type === "snapshot") {
        attempt = 0;
        onState(true);
      }
      onMessage(data);
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      onState(false);
      schedule();
    };
    ws.onerror = () => ws.close();
  }

  void connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      const ws = socket;
      socket = null;
      ws?.close();
    },
  };
}
