import { Link } from "@remix-run/react";
import { ru } from "../i18n/ru";
import { Icon, type IconName } from "./icons";

/**
 * A whole-screen answer for something the user cannot open: a folder or file that does not exist or that they may
 * not see (the server answers both the same way, so the page does not reveal which), or a screen that crashed.
 * Always offers the way back to «Доступные файлы» instead of leaving an empty screen with actions that cannot work.
 */
export function UnavailablePage({
  title,
  hint,
  icon = "lock",
  onRetry,
}: {
  title: string;
  hint: string;
  icon?: IconName;
  /** shown as «Попробовать ещё раз» when the failure may pass (a crash, a network error) */
  onRetry?: () => void;
}) {
  return (
    <section className="panel empty unavailable" role="alert" data-testid="unavailable-page">
      <span className="empty-icon">
        <Icon name={icon} size={26} />
      </span>
      <h1 className="empty-title">{title}</h1>
      <p className="unavailable-hint">{hint}</p>
      <div className="unavailable-actions">
        <Link className="btn btn-primary" to="/mam">
          <Icon name="folder" size={16} />
          {ru.screens.backToAvailable}
        </Link>
        {onRetry && (
          <button type="button" className="btn" onClick={onRetry}>
            <Icon name="restore" size={16} />
            {ru.screens.retry}
          </button>
        )}
      </div>
    </section>
  );
}
