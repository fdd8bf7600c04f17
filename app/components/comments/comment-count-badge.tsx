import { ru } from "../../i18n/ru";
import type { CommentCounts } from "../../../shared/comment-counts";

/** A speech bubble (24×24, stroked like the line icons). */
const BUBBLE = "M5 5h14a1 1 0 011 1v9a1 1 0 01-1 1h-7l-4 3.5V16H5a1 1 0 01-1-1V6a1 1 0 011-1z";

/**
 * A file's comments on its tile, row or search hit: a speech bubble with the number of open comments, or a check
 * mark once every comment is resolved; the tooltip and the accessible name say both numbers in words. Nothing is
 * drawn for a file without comments (public link pages never get counts, so they draw nothing either).
 */
export function CommentCountBadge({ counts, className }: { counts: CommentCounts | null | undefined; className?: string }) {
  if (!counts || counts.total <= 0) return null;
  const label = ru.commentCounts.label(counts.total, counts.open);
  const done = counts.open <= 0;
  return (
    <span
      className={`comment-count${done ? " all-resolved" : ""}${className ? ` ${className}` : ""}`}
      role="img"
      aria-label={label}
      title={label}
      data-testid="comment-count"
      data-open={counts.open}
      data-total={counts.total}
    >
      <svg width={14} height={14} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinejoin="round" aria-hidden="true">
        <path d={BUBBLE} />
      </svg>
      <span aria-hidden="true">{done ? "✓" : counts.open}</span>
    </span>
  );
}
