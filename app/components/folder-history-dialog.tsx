import { useState } from "react";
import { ru } from "../i18n/ru";
import { canDo, type Levels } from "../lib/abilities";
import { HistoryList } from "./history-list";
import { Icon } from "./icons";
import { Modal } from "./modal";

const t = ru.fileHistory;
const FILTERS = [
  ["all", undefined],
  ["files", "asset.*"],
  ["folders", "group.*"],
] as const;

/**
 * «История» in a folder's header: the folder's own events and those of the files and folders that were in it, in a
 * dialog, filtered by family. Offered to whoever manages the folder's rights (`acl`), as the API allows.
 */
export function FolderHistoryButton({ groupId, name, levels }: { groupId: string; name: string; levels: Levels }) {
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState<(typeof FILTERS)[number][0]>("all");
  if (!canDo(levels, "access")) return null;
  const action = FILTERS.find(([key]) => key === filter)?.[1];
  return (
    <>
      <button type="button" className="btn btn-ghost" data-testid="folder-history" onClick={() => setOpen(true)}>
        <Icon name="docs" size={16} />
        {t.button}
      </button>
      {open && (
        <Modal title={t.folderTitle(name)} onClose={() => setOpen(false)} wide>
          <div className="segmented history-filter" role="group" aria-label={t.filterLabel}>
            {FILTERS.map(([key]) => (
              <button key={key} type="button" className={`btn btn-ghost${filter === key ? " active" : ""}`} aria-pressed={filter === key} onClick={() => setFilter(key)}>
                {t.filters[key]}
              </button>
            ))}
          </div>
          <HistoryList entity={groupId} action={action} showObject />
        </Modal>
      )}
    </>
  );
}
