import { ru } from "../../i18n/ru";

const t = ru.admin;

/**
 * Previous/next paging by skip and take. With `total` it shows "1–25 из 120"; without one (lists that answer no
 * count) a page shorter than `take` is the last one.
 */
export function Pager({
  skip,
  take,
  count,
  total,
  onSkip,
}: {
  skip: number;
  take: number;
  /** items on the current page */
  count: number;
  total?: number;
  onSkip: (skip: number) => void;
}) {
  const hasNext = total === undefined ? count === take : skip + count < total;
  if (skip === 0 && !hasNext) return null;
  const from = count === 0 ? 0 : skip + 1;
  return (
    <div className="adm-pager">
      <span className="muted num">{total === undefined ? t.pageRange(from, skip + count) : t.pageOf(from, skip + count, total)}</span>
      <button type="button" className="btn btn-ghost" disabled={skip === 0} onClick={() => onSkip(Math.max(0, skip - take))}>
        ← {t.prev}
      </button>
      <button type="button" className="btn btn-ghost" disabled={!hasNext} onClick={() => onSkip(skip + take)}>
        {t.next} →
      </button>
    </div>
  );
}
