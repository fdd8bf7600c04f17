import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import {
  addToCollection,
  collectionsChanged,
  createCollection,
  listCollections,
  MAX_IDS_PER_CALL,
  type ListedCollection,
} from "../../lib/collections-api";
import { showToast } from "../../lib/toast";
import { Icon } from "../icons";
import { Modal } from "../modal";

/**
 * «Добавить в коллекцию»: the collections the caller may add to (own, or shared for editing), or «Новая коллекция…»
 * made inline. The server adds all the files or none (read is needed on each).
 */
export function AddToCollectionDialog({ assetIds, skippedFolders = false, onClose }: { assetIds: string[]; skippedFolders?: boolean; onClose: () => void }) {
  const [collections, setCollections] = useState<ListedCollection[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    listCollections().then(
      (r) => setCollections(r.items.filter((c) => c.role === "owner" || c.role === "admin" || c.role === "edit")),
      () => setCollections([]),
    );
  }, []);
  const tooMany = assetIds.length > MAX_IDS_PER_CALL;

  async function addTo(id: string, label: string) {
    setBusy(true);
    try {
      const { added } = await addToCollection(id, assetIds);
      showToast({ title: ru.collections.addTo, message: ru.collections.added(added, label) });
      collectionsChanged();
      onClose();
    } catch {
      // the API client showed the server's message; nothing was added
    } finally {
      setBusy(false);
    }
  }

  async function createAndAdd(e: React.FormEvent) {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    setBusy(true);
    try {
      const created = await createCollection(trimmed);
      await addTo(created.collection_id, created.name);
    } catch {
      setBusy(false);
    }
  }

  return (
    <Modal title={ru.collections.addTitle(assetIds.length)} onClose={onClose}>
      {skippedFolders && <p className="muted">{ru.collections.onlyFiles}</p>}
      {tooMany ? (
        <p className="field-error" role="alert">
          {ru.collections.tooMany(MAX_IDS_PER_CALL)}
        </p>
      ) : (
        <>
          <ul className="coll-pick" data-testid="collection-pick">
            {collections === null && <li className="muted">{ru.common.loading}</li>}
            {collections?.map((c) => (
              <li key={c.collection_id}>
                <button type="button" className="btn btn-ghost coll-pick-btn" disabled={busy} onClick={() => void addTo(c.collection_id, c.name)}>
                  <Icon name="grid" size={16} />
                  <span className="fav-name">{c.name}</span>
                  <span className="coll-count">{c.count}</span>
                </button>
              </li>
            ))}
          </ul>
          {creating ? (
            <form className="coll-new" onSubmit={createAndAdd} noValidate>
              <label htmlFor="coll-new-name">{ru.collections.newName}</label>
              <input
                id="coll-new-name"
                className="input"
                value={name}
                maxLength={200}
                autoFocus
                autoComplete="off"
                onChange={(e) => setName(e.target.value)}
              />
              <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>
                {ru.collections.create}
              </button>
            </form>
          ) : (
            <button type="button" className="btn" onClick={() => setCreating(true)} data-testid="new-collection">
              <Icon name="plus" size={16} />
              {ru.collections.newCollection}
            </button>
          )}
        </>
      )}
    </Modal>
  );
}

/** The button that opens the dialog, for selection bars and the viewer's toolbar. */
export function AddToCollectionButton({ assetIds, skippedFolders, className = "btn" }: { assetIds: string[]; skippedFolders?: boolean; className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={className} disabled={assetIds.length === 0} onClick={() => setOpen(true)} data-testid="add-to-collection">
        <Icon name="plus" size={16} />
        {ru.collections.addTo}
      </button>
      {open && <AddToCollectionDialog assetIds={assetIds} skippedFolders={skippedFolders} onClose={() => setOpen(false)} />}
    </>
  );
}
