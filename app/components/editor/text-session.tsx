import { useCallback, useEffect, useRef, useState } from "react";
import { ru } from "../../i18n/ru";
import { ApiError } from "../../lib/api-error";
import { showToast } from "../../lib/toast";
import { getFileText, lockOp, putFile, type EditorSession } from "../../lib/wopi-client";
import { TextEditor } from "./text-editor";

/** WOPI locks lapse after 30 minutes; the editor refreshes its lock well before. */
const REFRESH_EVERY_MS = 10 * 60 * 1000;

/**
 * Editing a text file through the WOPI host like an office editor would: take the file's lock (read-only when
 * someone else holds it), keep it fresh, save with PutFile under the lock (each save is a new version), and release
 * the lock when the page closes.
 */
export function TextSession(props: { session: EditorSession; onSaved: (version: number) => void; onLockChanged: () => void; actions: (node: React.ReactNode) => void }) {
  const { session, onSaved, onLockChanged, actions } = props;
  const lockId = useRef(`mam-${crypto.randomUUID()}`);
  const [text, setText] = useState<string | null>(null);
  const [saved, setSaved] = useState("");
  const [locked, setLocked] = useState(false);
  const [note, setNote] = useState<string | null>(session.right === "edit" ? null : ru.editor.readOnlyRights);
  const [saving, setSaving] = useState(false);
  const dirty = text !== null && text !== saved;

  useEffect(() => {
    let alive = true;
    getFileText(session).then(
      (t) => alive && (setText(t), setSaved(t)),
      (e: unknown) => showToast({ title: ru.screens.editor, message: e instanceof Error ? e.message : String(e) }),
    );
    if (session.right !== "edit") return () => void (alive = false);
    const id = lockId.current;
    lockOp(session, "LOCK", id).then(
      (ok) => {
        if (!alive) return;
        setLocked(ok);
        if (!ok) setNote(ru.editor.lockedByOther(session.lock?.holder_name ?? "—"));
        onLockChanged();
      },
      () => undefined,
    );
    const refresh = setInterval(() => void lockOp(session, "REFRESH_LOCK", id).catch(() => undefined), REFRESH_EVERY_MS);
    const release = () => void lockOp(session, "UNLOCK", id, true).catch(() => undefined);
    window.addEventListener("pagehide", release);
    return () => {
      alive = false;
      clearInterval(refresh);
      window.removeEventListener("pagehide", release);
      release();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one lock per session
  }, [session]);

  useEffect(() => {
    if (!dirty) return;
    const prompt = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = ru.editor.leavePrompt;
    };
    window.addEventListener("beforeunload", prompt);
    return () => window.removeEventListener("beforeunload", prompt);
  }, [dirty]);

  const save = useCallback(async () => {
    if (text === null || !locked || saving || !dirty) return;
    setSaving(true);
    try {
      const version = await putFile(session, lockId.current, text);
      setSaved(text);
      onSaved(version);
      showToast({ kind: "info", title: ru.editor.saved(version), message: session.file.name });
    } catch (e) {
      const message = e instanceof ApiError && e.status === 409 ? ru.editor.conflict : e instanceof Error ? e.message : String(e);
      showToast({ title: ru.screens.editor, message });
    } finally {
      setSaving(false);
    }
  }, [text, locked, saving, dirty, session, onSaved]);

  useEffect(() => {
    actions(
      locked ? (
        <>
          {dirty && <span className="muted editor-dirty">{ru.editor.unsaved}</span>}
          <button type="button" className="btn btn-primary" disabled={!dirty || saving} onClick={() => void save()}>
            {saving ? ru.editor.saving : ru.editor.save}
          </button>
        </>
      ) : (
        <span className="chip">{ru.editor.readOnly}</span>
      ),
    );
  }, [actions, locked, dirty, saving, save]);

  if (text === null) return <div className="editor-body muted">{ru.editor.loading}</div>;
  return (
    <div className="editor-body editor-text">
      {note && <p className="editor-note">{note}</p>}
      <TextEditor value={text} onChange={setText} onSave={() => void save()} readOnly={!locked} />
      <div className="muted editor-footer">{ru.editor.lines(text.split("\n").length)}</div>
    </div>
  );
}
