import { Link, useNavigate } from "@remix-run/react";
import { useEffect } from "react";
import { ru } from "../i18n/ru";
import { isTypingTarget, overlayOpen } from "../lib/keyboard";
import { useFolderNeighbours } from "../lib/use-folder-files";
import { Icon } from "./icons";

/** Whether a key press belongs to a player or a slider (arrows seek and change volume there). */
function mediaTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.closest('video, audio, [role="slider"], .player') != null;
}

/** A file's place in what the viewer was opened from: its neighbours' ids, its index (-1: not found) and the count. */
export interface ViewerPlace {
  prev: string | null;
  next: string | null;
  index: number;
  total?: number | null;
}

/**
 * Moving through a folder from the viewer: ←/→ open the previous/next file of the folder (in the folder view's
 * order), Esc goes back to the folder; the same as buttons with the file's place ("3 из 12").
 */
export function ViewerKeys({ groupId, assetId, back }: { groupId: string; assetId: string; back: string }) {
  return <ViewerPlaceNav place={useFolderNeighbours(groupId, assetId)} hrefOf={(id) => `/mam/${groupId}/asset/${id}`} back={back} />;
}

/**
 * ←/→ and the buttons step to the neighbours of `place`, Esc goes `back`. Keys are left alone while typing, inside a
 * player, or while a dialog or menu is open.
 */
export function ViewerPlaceNav({ place, hrefOf, back, testId }: { place: ViewerPlace; hrefOf: (id: string) => string; back: string; testId?: string }) {
  const navigate = useNavigate();
  const { prev, next, index, total } = place;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (isTypingTarget(e.target) || mediaTarget(e.target) || overlayOpen()) return;
      if (e.key === "ArrowLeft" && prev) navigate(hrefOf(prev));
      else if (e.key === "ArrowRight" && next) navigate(hrefOf(next));
      else if (e.key === "Escape") navigate(back);
      else return;
      e.preventDefault();
    };
    // Capture phase: decided before a dialog's own Esc handler closes it (which would make it look as if none were open).
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  if (index < 0) return null;
  return (
    <nav className="viewer-nav" aria-label={ru.rights.fileOf(index + 1, total ?? index + 1)} data-testid={testId}>
      {prev ? (
        <Link className="icon-btn" to={hrefOf(prev)} title={ru.rights.previousFile} aria-label={ru.rights.previousFile} rel="prev">
          <Icon name="prev" size={16} />
        </Link>
      ) : (
        <span className="icon-btn is-refused" aria-hidden="true">
          <Icon name="prev" size={16} />
        </span>
      )}
      <span className="muted viewer-nav-count">{total != null ? ru.rights.fileOf(index + 1, total) : index + 1}</span>
      {next ? (
        <Link className="icon-btn" to={hrefOf(next)} title={ru.rights.nextFile} aria-label={ru.rights.nextFile} rel="next">
          <Icon name="chevron" size={16} />
        </Link>
      ) : (
        <span className="icon-btn is-refused" aria-hidden="true">
          <Icon name="chevron" size={16} />
        </span>
      )}
    </nav>
  );
}
