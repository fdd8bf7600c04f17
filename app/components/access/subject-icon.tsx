import { Icon } from "../icons";

/** A folder for a group of users, the initial in a circle for a user. */
export function SubjectIcon({ type, name }: { type: "user" | "group"; name: string | null }) {
  if (type === "group") return <Icon name="folder" size={16} className="folder-icon" />;
  return (
    <span className="adm-avatar" aria-hidden="true">
      {(name ?? "?").slice(0, 1).toUpperCase()}
    </span>
  );
}
