import { useLocation } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { ApiError } from "../lib/api-error";
import {
  PQI_COMMENT_MAX,
  PQI_RATING_MAX,
  PQI_REFUSAL_RATING,
  PQI_STORAGE_KEY,
  parseSurveyState,
  passed,
  postponed,
  refused,
  shouldShowSurvey,
  surveyAllowedOn,
  type SurveyState,
} from "../lib/survey-state";
import { showToast } from "../lib/toast";
import { Modal } from "./modal";

const t = ru.survey;
const STARS = Array.from({ length: PQI_RATING_MAX }, (_, i) => i + 1);

function store(state: SurveyState): void {
  localStorage.setItem(PQI_STORAGE_KEY, JSON.stringify(state));
}

/**
 * The satisfaction survey of the shell (SPEC §2, §4): after a week of use, except on /login and /, a rating of 1 to
 * 10 stars and an optional comment. «Позже» (or closing) postpones it by 7 days, «Не хочу отвечать» sends 0 and ends
 * it, «Отправить» marks it passed. The rules of when it shows are in app/lib/survey-state.ts (decision 015).
 */
export function SurveyModal() {
  const { pathname } = useLocation();
  const [state, setState] = useState<SurveyState | null>(null);
  const [rating, setRating] = useState(0);
  const [hover, setHover] = useState(0);
  const [comment, setComment] = useState("");
  const [sending, setSending] = useState(false);

  // Read once in the browser (the server render never shows it); a browser without state starts the week now.
  useEffect(() => {
    const { state: current, fresh } = parseSurveyState(localStorage.getItem(PQI_STORAGE_KEY), Date.now());
    if (fresh) store(current);
    setState(current);
  }, []);

  const update = useCallback((next: SurveyState) => {
    store(next);
    setState(next);
  }, []);

  const later = useCallback(() => {
    if (state) update(postponed(state, Date.now()));
  }, [state, update]);

  async function send(value: number) {
    if (!state || sending) return;
    setSending(true);
    try {
      await apiRequest("/api/pqi", {
        method: "POST",
        body: { rating: value, comment: value ? comment.trim() || null : null },
        toast: false,
      });
      if (value !== PQI_REFUSAL_RATING) showToast({ title: t.thanksTitle, message: t.thanks, kind: "info" });
    } catch (error) {
      // 429: this person already answered this month (in another browser); this browser stops asking too.
      if (!(error instanceof ApiError && error.status === 429)) {
        showToast({ title: ru.errors.title, message: error instanceof Error ? error.message : ru.errors.unknown });
        setSending(false);
        return;
      }
    }
    update(value === PQI_REFUSAL_RATING ? refused(state) : passed(state));
    setSending(false);
  }

  if (!state || !surveyAllowedOn(pathname) || !shouldShowSurvey(state, Date.now())) return null;
  const shown = hover || rating;
  return (
    <Modal
      title={t.title}
      onClose={later}
      focusDialog
      footer={
        <>
          <button type="button" className="btn btn-ghost survey-refuse" disabled={sending} onClick={() => void send(PQI_REFUSAL_RATING)}>
            {t.refuse}
          </button>
          <span className="survey-spacer" />
          <button type="button" className="btn btn-ghost" disabled={sending} onClick={later}>
            {t.later}
          </button>
          <button type="button" className="btn btn-primary" disabled={sending || rating === 0} onClick={() => void send(rating)}>
            {t.send}
          </button>
        </>
      }
    >
      <div className="survey" data-testid="survey">
        <p className="survey-question">{t.question}</p>
        <div className="survey-stars" role="radiogroup" aria-label={t.ratingLabel} onMouseLeave={() => setHover(0)}>
          {STARS.map((n) => (
            <button
              key={n}
              type="button"
              role="radio"
              aria-checked={rating === n}
              aria-label={t.star(n)}
              className={`survey-star${n <= shown ? " on" : ""}`}
              onMouseEnter={() => setHover(n)}
              onClick={() => setRating(n)}
            >
              <svg viewBox="0 0 24 24" width="100%" height="100%" aria-hidden="true">
                <path d="M12 2.8l2.8 5.9 6.4.8-4.7 4.4 1.2 6.4L12 17.2l-5.7 3.1 1.2-6.4-4.7-4.4 6.4-.8z" />
              </svg>
            </button>
          ))}
        </div>
        <div className="survey-scale muted">
          <span>{t.scaleLow}</span>
          <span className="survey-value num" aria-live="polite">
            {shown ? t.star(shown) : t.chooseRating}
          </span>
          <span>{t.scaleHigh}</span>
        </div>
        <div className="field">
          <label htmlFor="survey-comment">{t.commentLabel}</label>
          <textarea
            id="survey-comment"
            className="input textarea survey-comment"
            rows={3}
            maxLength={PQI_COMMENT_MAX}
            placeholder={t.commentPlaceholder}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
          />
          <span className="survey-count muted num">{t.commentCount(comment.length, PQI_COMMENT_MAX)}</span>
        </div>
      </div>
    </Modal>
  );
}
