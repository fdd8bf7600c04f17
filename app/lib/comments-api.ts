import { apiRequest, apiResponse } from "./api-client";

/** The browser's side of the comments and inbox calls (decision 035). */

export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Anchor {
  region?: Region;
  time?: { start: number; end?: number };
  page?: number;
}

export interface CommentItem {
  comment_id: string;
  asset_id: string;
  version: number;
  author_id: string;
  author_name: string;
  text: string;
  anchor: Anchor | null;
  parent_id: string | null;
  resolved: boolean;
  mentions: string[];
  ctime: string;
  mtime: string;
}

export interface CommentList {
  total: number;
  following: boolean;
  latest_version: number;
  items: CommentItem[];
}

export interface NotificationItem {
  id: string;
  kind: string;
  asset_id: string | null;
  asset_name: string | null;
  comment_id: string | null;
  by_id: string | null;
  by_name: string | null;
  text: string;
  link: { comment_id?: string | null; version?: number | null; anchor?: Anchor | null; collection_id?: string };
  ctime: string;
  read: boolean;
}

/** Every comment of a file: a page ends at 2,000 comments or 2 MB of their text, and the next begins after it. */
export async function listComments(assetId: string): Promise<CommentList> {
  const first = await apiRequest<CommentList>(`/api/asset/${assetId}/comments`, { toast: false });
  const items = [...first.items];
  while (items.length < first.total) {
    const next = await apiRequest<CommentList>(`/api/asset/${assetId}/comments?skip=${items.length}`, { toast: false });
    if (next.items.length === 0) break;
    items.push(...next.items);
  }
  return { ...first, items };
}

export const postComment = (assetId: string, body: { text: string; anchor?: Anchor; parent_id?: string; version?: number }) =>
  apiRequest<CommentItem>(`/api/asset/${assetId}/comments`, { method: "POST", body });

export const resolveComment = (id: string, resolved: boolean) =>
  apiRequest<CommentItem>(`/api/comments/${id}/resolve`, { method: "POST", body: { resolved } });

export const deleteComment = (id: string) => apiRequest(`/api/comments/${id}`, { method: "DELETE" });

export const setFollow = (assetId: string, on: boolean) => apiRequest(`/api/asset/${assetId}/follow`, { method: on ? "PUT" : "DELETE" });

export const inbox = (q: { unread?: boolean; skip?: number; take?: number } = {}) =>
  apiRequest<{ unread: number; items: NotificationItem[] }>(
    `/api/notifications?${new URLSearchParams({
      ...(q.unread ? { unread: "1" } : {}),
      skip: String(q.skip ?? 0),
      take: String(q.take ?? 50),
    })}`,
    { toast: false },
  );

export const markRead = (body: { ids: string[] } | { all: true }) =>
  apiRequest<{ unread: number }>("/api/notifications/read", { method: "POST", body });

export const getSettings = () => apiRequest<{ email: string | null; digest: boolean }>("/api/notifications/settings", { toast: false });

export const putSettings = (body: { email: string | null; digest: boolean }) =>
  apiRequest<{ email: string | null; digest: boolean }>("/api/notifications/settings", { method: "PUT", body });

/** Where a notification leads: the file with the comment (its moment, page or region comes from the comment itself). */
export function notificationHref(n: NotificationItem): string {
  if (n.link.collection_id) return `/collections/${n.link.collection_id}`;
  if (!n.asset_id) return "/notifications";
  const q = new URLSearchParams();
  if (n.comment_id) q.set("comment", n.comment_id);
  if (n.link.anchor?.time) q.set("t", String(n.link.anchor.time.start));
  if (n.link.anchor?.page) q.set("page", String(n.link.anchor.page));
  const query = q.toString();
  return `/asset/${n.asset_id}${query ? `?${query}` : ""}`;
}

/**
 * Follows the inbox live: Server-Sent Events from the user's hub (with the bearer, which EventSource cannot send),
 * `onChange` on each «something new»; on any failure it falls back to polling every minute and tries the stream again.
 */
export function watchInbox(onChange: () => void): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let poll: ReturnType<typeof setInterval> | null = null;
  const startPolling = () => {
    poll ??= setInterval(onChange, 60_000);
  };
  const connect = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await apiResponse("/api/notifications/stream", controller.signal);
        if (!response.ok || !response.body) throw new Error(String(response.status));
        if (poll) clearInterval(poll);
        poll = null;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          const events = buffer.split("\n\n");
          buffer = events.pop() ?? "";
          if (events.some((e) => e.includes("event: inbox"))) onChange();
        }
      } catch {
        startPolling();
      }
      if (stopped) return;
      startPolling();
      await new Promise((r) => setTimeout(r, 5_000));
    }
  };
  void connect();
  return () => {
    stopped = true;
    controller?.abort();
    if (poll) clearInterval(poll);
  };
}

/** Seconds as m:ss (or h:mm:ss). */
export function formatMoment(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
