import { Link } from "@remix-run/react";
import { ru } from "../../i18n/ru";
import type { LockInfo } from "../../lib/wopi-client";

/** The editor's thin top bar: back to the folder, file name, version, who holds the lock, and the screen's actions. */
export function EditorTopBar(props: {
  name: string;
  version: number;
  back: string;
  lock: LockInfo | null;
  myId?: string;
  status?: string;
  children?: React.ReactNode;
}) {
  const lockText = !props.lock ? ru.editor.unlocked : props.lock.holder_id === props.myId ? ru.editor.lockedByYou : ru.editor.lockedBy(props.lock.holder_name);
  return (
    <header className="editor-bar">
      <Link className="btn btn-ghost editor-back" to={props.back}>
        ← {ru.editor.back}
      </Link>
      <div className="editor-title">
        <strong className="editor-name" title={props.name}>
          {props.name}
        </strong>
        <span className="muted editor-meta">
          {props.version > 0 ? ru.editor.version(props.version) : ru.editor.noVersion} · <span data-testid="lock-state">{lockText}</span>
          {props.status ? ` · ${props.status}` : ""}
        </span>
      </div>
      <div className="editor-actions">{props.children}</div>
    </header>
  );
}
