import { useEffect, useState } from "react";

const localFormat = () =>
  new Intl.DateTimeFormat("ru-RU", {
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  });

/**
 * A moment in the visitor's own time zone. The server does not know it, so the first paint shows `fallback` (the
 * server's UTC text) and the browser replaces it once hydrated; the machine-readable value is in `dateTime`.
 */
export function LocalMoment({ iso, fallback }: { iso: string; fallback: string }) {
  const [text, setText] = useState(fallback);
  useEffect(() => {
    const date = new Date(iso);
    if (!Number.isNaN(date.getTime())) setText(localFormat().format(date));
  }, [iso]);
  return (
    <time dateTime={iso} data-testid="local-moment">
      {text}
    </time>
  );
}
