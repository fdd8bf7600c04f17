import { useCallback, useState } from "react";
import { createPortal } from "react-dom";
import { ru } from "../../i18n/ru";
import { showToast } from "../../lib/toast";
import type { PickerEntry } from "../access/access-api";
import { SubjectSearch } from "../access/subject-search";
import { Icon } from "../icons";
import { ActionDialog } from "./action-dialog";
import * as api from "./admin-api";
import { UserFormDialog } from "./user-form-dialog";

const t = ru.admin;

type Dialog = "edit" | "toggle" | "delete" | null;

/**
 * Edit, disable or enable, and (for disabled users) delete: buttons and their dialogs. Deleting asks for the new
 * owner of what the user owns; the API says when one is required, and refuses the last administrator.
 */
export function UserActions({
  user,
  compact,
  onChanged,
  onDeleted,
}: {
  user: api.User;
  /** icon buttons for table rows */
  compact?: boolean;
  onChanged: (user: api.User) => void;
  onDeleted: () => void;
}) {
  const [dialog, setDialog] = useState<Dialog>(null);
  const [newOwner, setNewOwner] = useState<PickerEntry | null>(null);
  // Stable: the dialog refocuses its first field whenever onClose changes.
  const close = useCallback(() => {
    setDialog(null);
    setNewOwner(null);
  }, []);
  const button = (label: string, icon: "edit" | "trash" | "restore" | "logout", onClick: () => void, danger = false) =>
    compact ? (
      <button
        type="button"
        className={`icon-btn${danger ? " adm-danger-icon" : ""}`}
        title={`${label}: ${user.user_name}`}
        aria-label={`${label}: ${user.user_name}`}
        onClick={onClick}
      >
        <Icon name={icon} size={16} />
      </button>
    ) : (
      <button type="button" className={`btn${danger ? " btn-danger-outline" : ""}`} onClick={onClick}>
        <Icon name={icon} size={16} />
        {label}
      </button>
    );

  return (
    <>
      <div className={compact ? "row-actions" : "toolbar"}>
        {button(t.edit, "edit", () => setDialog("edit"))}
        {user.enabled ? button(t.disable, "logout", () => setDialog("toggle")) : button(t.enable, "restore", () => setDialog("toggle"))}
        {!user.enabled && button(t.remove, "trash", () => setDialog("delete"), true)}
      </div>
      {/* Dialogs go to the body: a table cell's alignment and colours must not reach them. */}
      {dialog &&
        createPortal(
          <>
            {dialog === "edit" && <UserFormDialog user={user} onSaved={onChanged} onClose={close} />}
            {dialog === "toggle" && (
              <ActionDialog
                title={user.enabled ? t.disableTitle : t.enableTitle}
                text={user.enabled ? t.disableText(user.user_name) : t.enableText(user.user_name)}
                confirm={user.enabled ? t.disable : t.enable}
                danger={user.enabled}
                onConfirm={() => api.patchUser(user.user_id, { enabled: !user.enabled }).then(onChanged)}
                onClose={close}
              />
            )}
            {dialog === "delete" && (
              <ActionDialog
                title={t.deleteTitle}
                text={t.deleteText(user.user_name)}
                confirm={t.remove}
                danger
                onConfirm={async () => {
                  await api.deleteUser(user.user_id, newOwner?.id);
                  showToast({ title: t.deleted(user.user_name), message: user.login, kind: "info" });
                  onDeleted();
                }}
                onClose={close}
              >
                <div className="field">
                  <span className="adm-label">{t.newOwner}</span>
                  {newOwner ? (
                    <div className="md-chips">
                      <span className="chip active adm-chip">
                        {newOwner.name}
                        {newOwner.login ? ` (${newOwner.login})` : ""}
                        <button type="button" aria-label={t.form.removeChip(newOwner.name)} onClick={() => setNewOwner(null)}>
                          ×
                        </button>
                      </span>
                    </div>
                  ) : (
                    <SubjectSearch
                      types={["user"]}
                      placeholder={t.form.userSearch}
                      label={t.newOwner}
                      exclude={[user.user_id]}
                      onPick={setNewOwner}
                    />
                  )}
                  <span className="md-hint">{t.newOwnerHint}</span>
                </div>
              </ActionDialog>
            )}
          </>,
          document.body,
        )}
    </>
  );
}
