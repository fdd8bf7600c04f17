import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { attachTags, createTag, detachTags, listTags, type Tag } from "../lib/library-api";
import { Modal } from "./modal";

type Entity = { id: string; type: "asset" | "group" };

/**
 * Adds tags to (or removes them from) one or many assets and folders. New tag names are created on the fly.
 * `current` are the tags the single selected entity already has (empty for bulk edits).
 */
export function TagDialog({
  entities,
  current = [],
  onDone,
  onClose,
}: {
  entities: Entity[];
  current?: Tag[];
  onDone: () => void;
  onClose: () => void;
}) {
  const [all, setAll] = useState<Tag[]>([]);
  const [chosen, setChosen] = useState<Set<string>>(new Set(current.map((t) => t.tag_id)));
  const [draft, setDraft] = useState("");
  useEffect(() => {
    listTags()
      .then(setAll)
      .catch(() => undefined);
  }, []);

  async function addDraft() {
    const name = draft.trim();
    if (!name) return;
    const existing = all.find((t) => t.tag_name.toLowerCase() === name.toLowerCase());
    const id = existing?.tag_id ?? (await createTag(name)).tag_id;
    if (!existing) setAll((tags) => [...tags, { tag_id: id, tag_name: name }]);
    setChosen((set) => new Set(set).add(id));
    setDraft("");
  }

  async function save() {
    const before = new Set(current.map((t) => t.tag_id));
    const added = [...chosen].filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !chosen.has(id));
    if (added.length) await attachTags(added, entities);
    if (removed.length) await detachTags(removed, entities);
    onDone();
    onClose();
  }

  return (
    <Modal
      title={entities.length > 1 ? ru.library.tagsBulk(entities.length) : ru.library.tags}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => save().catch(() => undefined)}>
            {ru.common.save}
          </button>
        </>
      }
    >
      <div className="tag-cloud">
        {all.map((tag) => (
          <button
            key={tag.tag_id}
            type="button"
            className={`chip${chosen.has(tag.tag_id) ? " active" : ""}`}
            aria-pressed={chosen.has(tag.tag_id)}
            onClick={() =>
              setChosen((set) => {
                const next = new Set(set);
                if (!next.delete(tag.tag_id)) next.add(tag.tag_id);
                return next;
              })
            }
          >
            {tag.tag_name}
          </button>
        ))}
        {all.length === 0 && <span className="muted">{ru.library.noTags}</span>}
      </div>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          addDraft().catch(() => undefined);
        }}
      >
        <input
          className="input"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder={ru.library.newTag}
          maxLength={100}
          aria-label={ru.library.newTag}
        />
        <button type="submit" className="btn">
          {ru.library.addTag}
        </button>
      </form>
    </Modal>
  );
}
