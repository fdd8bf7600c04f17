import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { inbox, watchInbox } from "../../lib/comments-api";

/** Tells other parts of the page (the inbox page) that the unread count changed. */
export const INBOX_CHANGED = "mam:inbox-changed";

/**
 * The bell in the header with the unread count, kept live by the user's notification stream (polling as the
 * fallback); it leads to /notifications.
 */
export function NotificationBell() {
  const [unread, setUnread] = useState(0);
  const refresh = useCallback(() => void inbox({ unread: true, take: 1 }).then((r) => setUnread(r.unread), () => undefined), []);
  useEffect(() => {
    refresh();
    const stop = watchInbox(() => {
      refresh();
      window.dispatchEvent(new Event(INBOX_CHANGED));
    });
    const onLocal = () => refresh();
    window.addEventListener(INBOX_CHANGED, onLocal);
    return () => {
      stop();
      window.removeEventListener(INBOX_CHANGED, onLocal);
    };
  }, [refresh]);
  return (
    <Link to="/notifications" className="icon-btn bell-btn" aria-label={unread > 0 ? ru.commentsUi.bellUnread(unread) : ru.commentsUi.bell} data-testid="bell">
      <svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
        <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
        <path d="M13.7 21a2 2 0 0 1-3.4 0" />
      </svg>
      {unread > 0 && (
        <span className="bell-count" data-testid="bell-count">
          {unread > 99 ? "99+" : unread}
        </span>
      )}
    </Link>
  );
}
