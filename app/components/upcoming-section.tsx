import { ru } from "../i18n/ru";
import { Icon, type IconName } from "./icons";
import { PageHeader } from "./page-header";

/**
 * A screen whose capability ships in a later release: its real title and an honest note, no invented data.
 */
export function UpcomingSection({ title, icon = "folder", children }: { title: string; icon?: IconName; children?: React.ReactNode }) {
  return (
    <>
      <PageHeader title={title} />
      {children}
      <section className="panel empty">
        <span className="empty-icon">
          <Icon name={icon} size={26} />
        </span>
        <div className="empty-title">{title}</div>
        <div>{ru.screens.pending}</div>
      </section>
    </>
  );
}
