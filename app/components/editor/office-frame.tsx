import { useEffect, useRef } from "react";
import { ru } from "../../i18n/ru";
import type { AppUrl } from "../../lib/wopi-client";

/**
 * The office editor in a full-window frame. WOPI requires the token to reach the editor in a form POST (never in the
 * URL, where it would land in logs and history): a hidden form targets the frame and is submitted once.
 */
export function OfficeFrame({ app }: { app: AppUrl }) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.submit(), [app.url]);
  return (
    <>
      <form ref={form} action={app.url} method="post" target="office-frame" className="visually-hidden">
        <input type="hidden" name="access_token" value={app.access_token} />
        <input type="hidden" name="access_token_ttl" value={String(app.access_token_ttl)} />
      </form>
      <iframe
        name="office-frame"
        title={ru.editor.officeFrameTitle}
        className="editor-frame"
        allow="clipboard-read; clipboard-write; fullscreen"
        allowFullScreen
      />
    </>
  );
}
