import { useState, useSyncExternalStore } from "react";
import { ru } from "../i18n/ru";
import { clashPrompt, type ClashQuestion } from "../lib/upload-engine/clash-prompt";
import type { ClashChoice } from "../lib/upload-engine/name-clash";
import { Icon } from "./icons";
import { Modal } from "./modal";

/** Names listed in the dialog before "и ещё N". */
const LISTED = 8;

function ClashDialog({ question }: { question: ClashQuestion }) {
  const [all, setAll] = useState(true);
  const many = question.pending.length > 1;
  const answer = (choice: ClashChoice) => question.answer({ choice, all: many && all });
  const listed = question.pending.slice(0, LISTED);
  return (
    <Modal
      title={ru.fileVersions.clashTitle(question.pending.length)}
      onClose={() => question.answer(null)}
      wide
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={() => answer("skip")}>
            {ru.fileVersions.skip}
          </button>
          <button type="button" className="btn" onClick={() => answer("both")}>
            {ru.fileVersions.keepBoth}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => answer("version")}>
            <Icon name="upload" size={16} />
            {ru.fileVersions.newVersion}
          </button>
        </>
      }
    >
      <div className="name-clash" data-testid="name-clash-dialog">
        <p>
          {many && all
            ? ru.fileVersions.clashText(question.folder ?? ru.mam.group)
            : ru.fileVersions.clashOne(question.name)}
        </p>
        <ul className="name-clash-list">
          {listed.map((name, i) => (
            <li key={`${i}-${name}`} className={i === 0 && !(many && all) ? "current" : undefined}>
              <Icon name="other" size={14} />
              <span>{name}</span>
            </li>
          ))}
          {question.pending.length > LISTED && <li className="muted">{ru.fileVersions.andMore(question.pending.length - LISTED)}</li>}
        </ul>
        {many && (
          <label className="check-row">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
            {ru.fileVersions.applyToAll}
          </label>
        )}
      </div>
    </Modal>
  );
}

/** The same-name question of an upload batch, when one is open (mounted once, in the signed-in shell). */
export function NameClashHost() {
  const question = useSyncExternalStore(clashPrompt.subscribe, clashPrompt.get, clashPrompt.getServer);
  return question ? <ClashDialog key={question.name + question.pending.length} question={question} /> : null;
}
