import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { RENDERED_EXTENSIONS, editorKind } from "../../lib/editor-kind";
import { useCurrentUser } from "../../lib/use-current-user";
import {
  getFileBlobUrl,
  getTextData,
  lockHolder,
  officeUrl,
  openSession,
  type AppUrl,
  type EditorSession,
  type LockInfo,
  type TextData,
} from "../../lib/wopi-client";
import { DocumentView } from "./document-view";
import { EditorTopBar } from "./editor-top-bar";
import { OfficeFrame } from "./office-frame";
import { TextSession } from "./text-session";

type View =
  | { mode: "loading" }
  | { mode: "error"; message: string }
  | { mode: "office"; app: AppUrl }
  | { mode: "text" }
  | { mode: "document"; data: TextData }
  | { mode: "blob"; url: string; kind: "pdf" | "image" }
  | { mode: "unsupported" };

/** How often the top bar asks who holds the lock (another editor may take or release it). */
const LOCK_POLL_MS = 20_000;

/**
 * /editor/{id}: the configured office editor in a frame when it opens this file; otherwise what the browser can do
 * itself (text files edited in place, office documents shown read-only, PDF and images natively).
 */
export function EditorScreen({ assetId, action }: { assetId: string; action: "view" | "edit" }) {
  const user = useCurrentUser();
  const [session, setSession] = useState<EditorSession | null>(null);
  const [view, setView] = useState<View>({ mode: "loading" });
  const [version, setVersion] = useState(0);
  const [lock, setLock] = useState<LockInfo | null>(null);
  const [actions, setActions] = useState<React.ReactNode>(null);

  const refreshLock = useCallback(() => void lockHolder(assetId).then((r) => setLock(r.lock), () => undefined), [assetId]);

  useEffect(() => {
    let alive = true;
    let blobUrl: string | null = null;
    (async () => {
      const s = await openSession(assetId, action);
      if (!alive) return;
      setSession(s);
      setVersion(s.file.version);
      setLock(s.lock);
      const kind = editorKind(s.file.name, s.file.mime_type);
      const app = kind === "text" || s.office_editor !== "available" ? null : await officeUrl(assetId, action === "edit" && s.right === "edit" ? "edit" : "view");
      if (!alive) return;
      if (app) return setView({ mode: "office", app });
      if (kind === "text") return setView({ mode: "text" });
      if (kind === "office" && RENDERED_EXTENSIONS.has(s.file.extension)) return setView({ mode: "document", data: await getTextData(s) });
      if (kind === "pdf" || kind === "image") {
        blobUrl = await getFileBlobUrl(s);
        return setView({ mode: "blob", url: blobUrl, kind });
      }
      setView({ mode: "unsupported" });
    })().catch((e: unknown) => alive && setView({ mode: "error", message: e instanceof Error ? e.message : String(e) }));
    return () => {
      alive = false;
      if (blobUrl) URL.revokeObjectURL(blobUrl);
    };
  }, [assetId, action]);

  useEffect(() => {
    const timer = setInterval(refreshLock, LOCK_POLL_MS);
    return () => clearInterval(timer);
  }, [refreshLock]);

  const back = session?.file.group_id ? `/mam/${session.file.group_id}/asset/${assetId}` : `/asset/${assetId}`;
  return (
    <div className="editor-page">
      <EditorTopBar name={session?.file.name ?? ru.screens.editor} version={version} back={back} lock={lock} myId={user?.id}>
        {actions}
      </EditorTopBar>
      {view.mode === "loading" && <div className="editor-body muted">{ru.editor.loading}</div>}
      {view.mode === "error" && (
        <div className="editor-body">
          <p className="doc-column editor-note editor-error" role="alert">
            {view.message}
          </p>
        </div>
      )}
      {view.mode === "office" && <OfficeFrame app={view.app} />}
      {view.mode === "text" && session && (
        <TextSession session={session} onSaved={setVersion} onLockChanged={refreshLock} actions={setActions} />
      )}
      {view.mode === "document" && (
        <div className="editor-body">
          <div className="doc-column">
            <OfficeNote text={ru.editor.officeNeeded} isAdmin={Boolean(user?.isAdmin)} />
            <DocumentView blocks={view.data.blocks} truncated={view.data.truncated} />
          </div>
        </div>
      )}
      {view.mode === "blob" &&
        (view.kind === "image" ? (
          <div className="editor-body editor-media">
            <img src={view.url} alt={session?.file.name ?? ""} />
          </div>
        ) : (
          <iframe className="editor-frame" src={view.url} title={session?.file.name ?? ""} />
        ))}
      {view.mode === "unsupported" && (
        <div className="editor-body">
          <div className="doc-column">
            <OfficeNote text={ru.editor.officeNeededOther} isAdmin={Boolean(user?.isAdmin)} />
          </div>
        </div>
      )}
    </div>
  );
}

/** What needs an office server, and what to do about it: the setting for administrators, whom to ask for others. */
function OfficeNote({ text, isAdmin }: { text: string; isAdmin: boolean }) {
  return (
    <p className="editor-note" role="note">
      {text} {isAdmin ? ru.editor.officeHowAdmin : ru.editor.officeHowUser}
    </p>
  );
}
