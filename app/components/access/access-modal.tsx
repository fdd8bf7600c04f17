import { ru } from "../../i18n/ru";
import { Modal } from "../modal";
import { AccessEditor } from "./access-editor";

/** The access rules editor of a file or folder in a dialog, for callers already known to hold `acl` on it. */
export function AccessModal({ entityId, name, onClose }: { entityId: string; name: string; onClose: () => void }) {
  return (
    <Modal title={ru.admin.accessEditor.title(name)} onClose={onClose} wide>
      <div className="acc-dialog">
        <AccessEditor entityId={entityId} />
      </div>
    </Modal>
  );
}
