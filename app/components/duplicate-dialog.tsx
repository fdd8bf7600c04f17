import { useNavigate } from "@remix-run/react";
import { useSyncExternalStore } from "react";
import { ru } from "../i18n/ru";
import { formatBytes } from "../lib/media-kind";
import { duplicatePrompt, type DuplicateQuestion } from "../lib/upload-engine/duplicate-prompt";
import { Icon } from "./icons";
import { Modal } from "./modal";

/** Files listed in the dialog. */
const LISTED = 5;

function DuplicateDialog({ question }: { question: DuplicateQuestion }) {
  const navigate = useNavigate();
  const first = question.matches[0];
  const listed = question.matches.slice(0, LISTED);
  const open = () => {
    question.answer("open");
    // Client-side: the upload queue keeps sending the rest of the batch.
    navigate(`/asset/${first.asset_id}`);
  };
  return (
    <Modal
      title={ru.duplicates.existsTitle}
      onClose={() => question.answer(null)}
      wide
      focusDialog
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={() => question.answer("anyway")}>
            {ru.duplicates.uploadAnyway}
          </button>
          <button type="button" className="btn" onClick={() => question.answer("version")}>
            <Icon name="upload" size={16} />
            {ru.duplicates.addVersion}
          </button>
          <button type="button" className="btn btn-primary" onClick={open}>
            {ru.duplicates.open}
          </button>
        </>
      }
    >
      <div className="dup-prompt" data-testid="duplicate-dialog">
        <p>{ru.duplicates.exists(listed.map((m) => `«${m.name}»`).join(", "))}</p>
        <p className="muted">{ru.duplicates.uploading(question.name)}</p>
        <ul className="dup-prompt-list">
          {listed.map((m) => (
            <li key={m.asset_id}>
              {m.preview ? <img src={m.preview} alt="" width={40} height={40} loading="lazy" /> : <Icon name="other" size={20} />}
              <span className="dup-prompt-name">{m.name}</span>
              <span className="muted">
                {[m.folder ? ru.duplicates.inFolder(m.folder.name) : null, formatBytes(m.size)].filter(Boolean).join(" · ")}
              </span>
            </li>
          ))}
        </ul>
      </div>
    </Modal>
  );
}

/** The «Такой файл уже есть» question of an upload batch, when one is open (mounted once, in the signed-in shell). */
export function DuplicateHost() {
  const question = useSyncExternalStore(duplicatePrompt.subscribe, duplicatePrompt.get, duplicatePrompt.getServer);
  return question ? <DuplicateDialog key={question.name + question.matches[0].asset_id} question={question} /> : null;
}
