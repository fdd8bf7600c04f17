/**
 * When the satisfaction survey shows (SPEC §4 "Survey", §9; decision 015), kept pure so it is unit-tested in Node.
 * Its state is the SPEC's `{ isRefuse, lastDate, isPassed }` under the localStorage key `pqi`:
 * - the first time the shell sees no state it starts the clock: lastDate = now + one week ("after a week of use");
 * - it shows once now is past lastDate, unless refused or passed;
 * - «Позже» (and closing the window) postpones it by 7 days;
 * - «Не хочу отвечать» sends rating 0 and it never shows again; a sent rating marks it passed.
 */
// The longest comment: the API refuses a longer one, so the limit lives with the survey's domain in the Worker.
import { PQI_COMMENT_MAX } from "../../workers/services/feedback/pure";

export { PQI_COMMENT_MAX };

export const PQI_STORAGE_KEY = "pqi";
const DAY_MS = 86_400_000;
/** SPEC §9: «Позже» postpones by 7 days. */
export const PQI_POSTPONE_MS = 7 * DAY_MS;
/** A new user is first asked after a week of use. */
export const PQI_FIRST_ASK_AFTER_MS = 7 * DAY_MS;
/** SPEC §5/§9: ratings 1 to 10; 0 is the refusal. */
export const PQI_RATING_MIN = 1;
export const PQI_RATING_MAX = 10;
export const PQI_REFUSAL_RATING = 0;

export interface SurveyState {
  isRefuse: boolean;
  /** ISO date-time after which the survey may show */
  lastDate: string;
  isPassed: boolean;
}

/** The state of a browser that has never seen the survey: ask after a week. */
export function initialSurveyState(now: number): SurveyState {
  return { isRefuse: false, isPassed: false, lastDate: new Date(now + PQI_FIRST_ASK_AFTER_MS).toISOString() };
}

/** Parses the stored value; anything missing or malformed starts afresh (the clock starts now). */
export function parseSurveyState(raw: string | null, now: number): { state: SurveyState; fresh: boolean } {
  if (raw) {
    try {
      const value = JSON.parse(raw) as Partial<SurveyState>;
      if (typeof value === "object" && value && typeof value.lastDate === "string" && !Number.isNaN(Date.parse(value.lastDate))) {
        return { state: { isRefuse: value.isRefuse === true, isPassed: value.isPassed === true, lastDate: value.lastDate }, fresh: false };
      }
    } catch {
      // a hand-edited or foreign value: fall through to a new state
    }
  }
  return { state: initialSurveyState(now), fresh: true };
}

/** SPEC §4: shown if the current time is past lastDate and the user has neither refused nor passed. */
export function shouldShowSurvey(state: SurveyState, now: number): boolean {
  return !state.isRefuse && !state.isPassed && now > Date.parse(state.lastDate);
}

/** The paths where the survey never shows (SPEC §2): the sign-in screen and `/` (which only redirects). */
export function surveyAllowedOn(pathname: string): boolean {
  return pathname !== "/" && pathname !== "/login" && !pathname.startsWith("/login/");
}

export const postponed = (state: SurveyState, now: number): SurveyState => ({
  ...state,
  lastDate: new Date(now + PQI_POSTPONE_MS).toISOString(),
});
export const refused = (state: SurveyState): SurveyState => ({ ...state, isRefuse: true });
export const passed = (state: SurveyState): SurveyState => ({ ...state, isPassed: true });
