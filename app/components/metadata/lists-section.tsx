import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { Icon } from "../icons";
import { ConfirmDialog, NameDialog } from "../modal";
import * as api from "./api";

const t = ru.metadataAdmin;

type Dialog = { kind: "create" } | { kind: "rename" | "delete"; list: api.ListInfo } | null;

/** Lists and their records: the sources of choice fields. */
export function ListsSection() {
  const [lists, setLists] = useState<api.ListInfo[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [records, setRecords] = useState<api.ListRecord[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [recId, setRecId] = useState("");
  const [label, setLabel] = useState("");

  const loadLists = useCallback(() => api.lists().then(setLists, () => setLists([])), []);
  const loadRecords = useCallback(() => {
    if (selected) api.records(selected).then(setRecords, () => setRecords([]));
  }, [selected]);
  useEffect(() => void loadLists(), [loadLists]);
  useEffect(loadRecords, [loadRecords]);
  const current = lists?.find((l) => l.list_id === selected) ?? null;

  async function addRecord(event: React.FormEvent) {
    event.preventDefault();
    if (!selected || !recId.trim() || !label.trim()) return;
    await api.putRecord(selected, recId.trim(), label.trim()).then(
      () => {
        setRecId("");
        setLabel("");
        loadRecords();
        void loadLists();
      },
      () => undefined,
    );
  }

  return (
    <section>
      <div className="md-section-head">
        <p className="muted">{t.listsHint}</p>
        <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: "create" })}>
          <Icon name="plus" size={16} />
          {t.newList}
        </button>
      </div>
      <div className="md-split">
        <nav className="panel md-side" aria-label={t.sections.lists}>
          {lists?.length === 0 && <p className="muted pad">{t.noLists}</p>}
          {lists?.map((l) => (
            <button
              key={l.list_id}
              type="button"
              className={`tree-row${l.list_id === selected ? " active" : ""}`}
              onClick={() => setSelected(l.list_id)}
            >
              <span className="md-list-name">{l.name}</span>
              <span className="muted md-list-count">{l.count}</span>
            </button>
          ))}
        </nav>
        <div className="panel md-main">
          {!current ? (
            <p className="muted pad">{t.pickList}</p>
          ) : (
            <>
              <div className="md-main-head">
                <h3>{current.name}</h3>
                <span className="muted">{t.recordsCount(current.count)}</span>
                <span className="md-spacer" />
                <button
                  type="button"
                  className="icon-btn"
                  title={t.rename}
                  aria-label={`${t.rename}: ${current.name}`}
                  onClick={() => setDialog({ kind: "rename", list: current })}
                >
                  <Icon name="edit" size={16} />
                </button>
                <button
                  type="button"
                  className="icon-btn"
                  title={t.delete}
                  aria-label={`${t.delete}: ${current.name}`}
                  onClick={() => setDialog({ kind: "delete", list: current })}
                >
                  <Icon name="trash" size={16} />
                </button>
              </div>
              <table className="table">
                <thead>
                  <tr>
                    <th>{t.recId}</th>
                    <th>{t.recLabel}</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {records.map((r) => (
                    <tr key={r.rec_id}>
                      <td>
                        <code className="md-key">{r.rec_id}</code>
                      </td>
                      <td className="md-strong">{String(r.rec_data.label ?? "")}</td>
                      <td className="md-actions-cell">
                        <button
                          type="button"
                          className="icon-btn"
                          aria-label={`${t.delete}: ${r.rec_id}`}
                          onClick={() =>
                            void api.deleteRecord(r.list_id, r.rec_id).then(
                              () => (loadRecords(), loadLists()),
                              () => undefined,
                            )
                          }
                        >
                          <Icon name="trash" size={15} />
                        </button>
                      </td>
                    </tr>
                  ))}
                  {records.length === 0 && (
                    <tr>
                      <td colSpan={3} className="muted">
                        {t.noRecords}
                      </td>
                    </tr>
                  )}
                </tbody>
              </table>
              <form className="inline-form md-record-form" onSubmit={addRecord}>
                <input
                  className="input md-rec-id"
                  aria-label={t.recId}
                  placeholder={t.recId}
                  value={recId}
                  onChange={(e) => setRecId(e.target.value)}
                  maxLength={100}
                />
                <input
                  className="input"
                  aria-label={t.recLabel}
                  placeholder={t.recLabel}
                  value={label}
                  onChange={(e) => setLabel(e.target.value)}
                  maxLength={200}
                />
                <button type="submit" className="btn">
                  <Icon name="plus" size={16} />
                  {t.addRecord}
                </button>
              </form>
            </>
          )}
        </div>
      </div>
      {dialog?.kind === "create" && (
        <NameDialog
          title={t.newList}
          label={t.listName}
          submit={t.create}
          onSubmit={(name) => api.createList(name).then(({ list_id }) => (setSelected(list_id), loadLists()))}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "rename" && (
        <NameDialog
          title={t.rename}
          label={t.listName}
          initial={dialog.list.name}
          submit={t.save}
          onSubmit={(name) => api.renameList(dialog.list.list_id, name).then(loadLists)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={t.deleteListTitle}
          text={dialog.list.name}
          confirm={t.delete}
          onConfirm={() => api.deleteList(dialog.list.list_id).then(() => (setSelected(null), loadLists()))}
          onClose={() => setDialog(null)}
        />
      )}
    </section>
  );
}
