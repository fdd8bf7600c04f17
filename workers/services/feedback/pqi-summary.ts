/**
 * The arithmetic of the survey summary, kept pure (unit-tested in Node): the rating distribution and an NPS-style
 * score per period. Ratings are 1..10 (SPEC §5); 0 is a refusal and counts apart, never in the score.
 *
 * The score follows Net Promoter's bands stretched to a 1..10 scale: 9–10 promoters, 7–8 passives, 1–6 detractors;
 * score = % promoters − % detractors, from −100 to 100, rounded to an integer; null when nobody rated.
 */

/** How many answers gave one rating in one period (a row of the grouped query). */
export interface RatingCount {
  period: string;
  rating: number;
  count: number;
}

export interface PeriodSummary {
  /** "2026-11" for months, "2026-W47" for ISO-like weeks (SQLite's %W: weeks starting on Monday) */
  period: string;
  /** answers with a rating 1..10 */
  answered: number;
  refused: number;
  /** mean rating of `answered`, 2 decimals; null without answers */
  average: number | null;
  nps: number | null;
  promoters: number;
  passives: number;
  detractors: number;
}

export interface SurveySummary extends Omit<PeriodSummary, "period"> {
  /** count per rating 0..10 (index = rating; 0 = refusals) */
  distribution: { rating: number; count: number }[];
  /** oldest period first; periods without answers are left out */
  series: PeriodSummary[];
}

/** SPEC §9: the longest survey comment, in characters (the survey window counts down to it). */
export const PQI_COMMENT_MAX = 2000;

export const PROMOTER_MIN = 9;
export const PASSIVE_MIN = 7;

/** Promoters, passives, detractors and refusals of a set of rating counts. */
function bands(counts: readonly { rating: number; count: number }[]) {
  let promoters = 0;
  let passives = 0;
  let detractors = 0;
  let refused = 0;
  let sum = 0;
  for (const { rating, count } of counts) {
    if (rating === 0) refused += count;
    else if (rating >= PROMOTER_MIN) promoters += count;
    else if (rating >= PASSIVE_MIN) passives += count;
    else detractors += count;
    sum += rating * count;
  }
  const answered = promoters + passives + detractors;
  return {
    answered,
    refused,
    promoters,
    passives,
    detractors,
    average: answered ? Math.round((sum / answered) * 100) / 100 : null,
    nps: answered ? npsScore(promoters, detractors, answered) : null,
  };
}

/** % promoters − % detractors, rounded; `answered` must be positive. */
export function npsScore(promoters: number, detractors: number, answered: number): number {
  // Math.round(-0.5) is -0: normalise so a tie prints as 0
  return Math.round(((promoters - detractors) * 100) / answered) + 0;
}

/** The whole summary from per-period rating counts. */
export function summarise(rows: readonly RatingCount[]): SurveySummary {
  const byRating = new Map<number, number>();
  const byPeriod = new Map<string, RatingCount[]>();
  for (const row of rows) {
    byRating.set(row.rating, (byRating.get(row.rating) ?? 0) + row.count);
    const list = byPeriod.get(row.period) ?? [];
    list.push(row);
    byPeriod.set(row.period, list);
  }
  const distribution = Array.from({ length: 11 }, (_, rating) => ({ rating, count: byRating.get(rating) ?? 0 }));
  const series = [...byPeriod.keys()].sort().map((period) => ({ period, ...bands(byPeriod.get(period)!) }));
  return { ...bands(distribution), distribution, series };
}
