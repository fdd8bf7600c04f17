import type { RequestContext } from "../access";

/**
 * Tells the recipients' hubs (NotificationHubDO, one per user) that their inbox changed. Best effort: a browser that
 * misses it finds the notification on its next poll or reconnect.
 */
export async function pokeHubs(rc: RequestContext, made: readonly { userId: string }[]): Promise<void> {
  const users = [...new Set(made.map((m) => m.userId))];
  await Promise.all(
    users.map(async (userId) => {
      try {
        await rc.env.NOTIFY_HUB.get(rc.env.NOTIFY_HUB.idFromName(userId)).notify(1);
      } catch (error) {
        console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "notification hub unreachable", error: String(error) }));
      }
    }),
  );
}

/** The user's live stream of inbox changes (Server-Sent Events), from his hub. */
export function openInboxStream(rc: RequestContext, userId: string, request: Request): Promise<Response> {
  return rc.env.NOTIFY_HUB.get(rc.env.NOTIFY_HUB.idFromName(userId)).fetch(new Request("https://hub/stream", { signal: request.signal }));
}
