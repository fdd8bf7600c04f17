import { describe, expect, it } from "vitest";
import {
  PQI_POSTPONE_MS,
  initialSurveyState,
  parseSurveyState,
  passed,
  postponed,
  refused,
  shouldShowSurvey,
  surveyAllowedOn,
} from "../../app/lib/survey-state";

const NOW = Date.UTC(2026, 10, 26, 12);
const DAY = 86_400_000;

describe("when the survey shows", () => {
  it("a browser without state starts a week of use: not now, and only after 7 days", () => {
    const { state, fresh } = parseSurveyState(null, NOW);
    expect(fresh).toBe(true);
    expect(state).toEqual({ isRefuse: false, isPassed: false, lastDate: new Date(NOW + 7 * DAY).toISOString() });
    expect(shouldShowSurvey(state, NOW)).toBe(false);
    expect(shouldShowSurvey(state, NOW + 7 * DAY - 1)).toBe(false);
    expect(shouldShowSurvey(state, NOW + 7 * DAY + 1)).toBe(true);
  });

  it("reads the stored SPEC shape back, and starts afresh from malformed values", () => {
    const stored = { isRefuse: false, isPassed: false, lastDate: "2026-11-01T00:00:00.000Z" };
    expect(parseSurveyState(JSON.stringify(stored), NOW)).toEqual({ state: stored, fresh: false });
    for (const raw of ["{", "null", "42", JSON.stringify({ lastDate: "вчера" }), JSON.stringify({ isPassed: true })]) {
      expect(parseSurveyState(raw, NOW)).toEqual({ state: initialSurveyState(NOW), fresh: true });
    }
  });

  it("«Позже» postpones by 7 days from now", () => {
    const due = { isRefuse: false, isPassed: false, lastDate: new Date(NOW - DAY).toISOString() };
    expect(shouldShowSurvey(due, NOW)).toBe(true);
    const later = postponed(due, NOW);
    expect(Date.parse(later.lastDate)).toBe(NOW + PQI_POSTPONE_MS);
    expect(PQI_POSTPONE_MS).toBe(7 * DAY);
    expect(shouldShowSurvey(later, NOW + 6 * DAY)).toBe(false);
    expect(shouldShowSurvey(later, NOW + 7 * DAY + 1)).toBe(true);
  });

  it("a refusal and a sent rating end it for good", () => {
    const due = { isRefuse: false, isPassed: false, lastDate: new Date(NOW - DAY).toISOString() };
    expect(shouldShowSurvey(refused(due), NOW + 365 * DAY)).toBe(false);
    expect(shouldShowSurvey(passed(due), NOW + 365 * DAY)).toBe(false);
  });

  it("never shows on /login or on /", () => {
    expect(surveyAllowedOn("/")).toBe(false);
    expect(surveyAllowedOn("/login")).toBe(false);
    expect(surveyAllowedOn("/mam")).toBe(true);
    expect(surveyAllowedOn("/admin/survey")).toBe(true);
  });
});
