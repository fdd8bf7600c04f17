import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { ROOT_GROUP_ID } from "../../lib/root-group";
import { Icon } from "../icons";
import { Modal } from "../modal";
import { AccessEditor } from "./access-editor";
import { aclAccess } from "./access-api";

const t = ru.admin.accessEditor;

/**
 * The 'Доступ' entry point of a folder or file: a button, shown only to those who may change its rules (`acl`),
 * that opens the access rules editor in a dialog.
 */
export function AccessButton({ entityId, name, className = "btn" }: { entityId: string; name?: string; className?: string }) {
  const [may, setMay] = useState(false);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    setMay(false);
    if (entityId === ROOT_GROUP_ID) return;
    let alive = true;
    aclAccess(entityId).then(
      (answer) => alive && setMay(answer.acl),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [entityId]);
  if (!may) return null;
  return (
    <>
      <button type="button" className={className} title={t.button} onClick={() => setOpen(true)}>
        <Icon name="admin" size={16} />
        {t.button}
      </button>
      {open && (
        <Modal title={name ? t.title(name) : t.button} onClose={() => setOpen(false)} wide>
          <div className="acc-dialog">
            <AccessEditor entityId={entityId} />
          </div>
        </Modal>
      )}
    </>
  );
}
