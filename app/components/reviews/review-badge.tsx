import { ru } from "../../i18n/ru";
import type { ReviewStatus } from "../../../shared/review-status";

/**
 * A file's review status as a small coloured label (tiles, the viewer's title). Nothing is drawn while nobody has
 * decided, so undecided files stay quiet.
 */
export function ReviewBadge({ status, className }: { status: ReviewStatus | null | undefined; className?: string }) {
  if (!status) return null;
  const label = ru.reviews.statuses[status] ?? status;
  return (
    <span className={`review-badge review-${status}${className ? ` ${className}` : ""}`} title={ru.reviewsUi.badgeTitle(label)} data-review={status}>
      {label}
    </span>
  );
}
