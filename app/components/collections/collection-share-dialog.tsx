import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { collectionMembers, shareCollection, unshareCollection, type CollectionMember } from "../../lib/collections-api";
import { SubjectSearch } from "../access/subject-search";
import { SubjectIcon } from "../access/subject-icon";
import { Icon } from "../icons";
import { Modal } from "../modal";
import { ShareDialog } from "../share-dialog";

const ROLES = ["view", "comment", "edit"] as const;

/**
 * Who has the collection and at which role (view, comment, edit), like a folder's share dialog. Only the owner and
 * administrators change it (`manage`); others see the list.
 */
export function CollectionShareDialog({ collectionId, name, manage, onClose }: { collectionId: string; name: string; manage: boolean; onClose: () => void }) {
  const [members, setMembers] = useState<CollectionMember[] | null>(null);
  const [role, setRole] = useState<CollectionMember["role"]>("view");
  /** the public-link dialog over this one: a link is a way of sharing, so only managers get it */
  const [linkOpen, setLinkOpen] = useState(false);
  const reload = useCallback(() => {
    collectionMembers(collectionId).then((r) => setMembers(r.items), () => setMembers([]));
  }, [collectionId]);
  useEffect(reload, [reload]);

  const put = (subj: string, type: "user" | "group", r: CollectionMember["role"]) =>
    shareCollection(collectionId, subj, type, r).then(reload, () => undefined);

  return (
    <Modal title={`${ru.collections.share}: ${name}`} onClose={onClose} wide>
      <p className="muted">{ru.collections.shareHint}</p>
      {manage && (
        <div className="coll-link-row">
          <button type="button" className="btn" onClick={() => setLinkOpen(true)} data-testid="collection-public-link">
            <Icon name="share" size={16} />
            {ru.collectionLink.link}
          </button>
          <span className="muted">{ru.collectionLink.linkHint}</span>
        </div>
      )}
      {linkOpen && <ShareDialog entityId={collectionId} name={name} mayDownload onClose={() => setLinkOpen(false)} />}
      {manage && (
        <div className="coll-share-add">
          <SubjectSearch types={["user", "group"]} placeholder={ru.collections.addMember} exclude={members?.map((m) => m.subj) ?? []} onPick={(e) => void put(e.id, e.type, role)} />
          <label className="coll-role">
            <span>{ru.collections.role}</span>
            <select className="input" value={role} onChange={(e) => setRole(e.target.value as CollectionMember["role"])} data-testid="collection-role">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {ru.collections.roles[r]}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      <h3 className="coll-members-title">{ru.collections.members}</h3>
      {members?.length === 0 && <p className="muted">{ru.collections.noMembers}</p>}
      <ul className="coll-members" data-testid="collection-members">
        {members?.map((m) => (
          <li key={m.subj}>
            <SubjectIcon type={m.subj_type} name={m.name} />
            <span className="fav-name">{m.name ?? m.subj}</span>
            {manage ? (
              <select
                className="input"
                aria-label={`${ru.collections.role}: ${m.name ?? m.subj}`}
                value={m.role}
                onChange={(e) => void put(m.subj, m.subj_type, e.target.value as CollectionMember["role"])}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {ru.collections.roles[r]}
                  </option>
                ))}
              </select>
            ) : (
              <span className="chip">{ru.collections.roles[m.role]}</span>
            )}
            {manage && (
              <button type="button" className="btn btn-ghost" onClick={() => void unshareCollection(collectionId, m.subj).then(reload, () => undefined)}>
                {ru.collections.unshare}
              </button>
            )}
          </li>
        ))}
      </ul>
    </Modal>
  );
}
