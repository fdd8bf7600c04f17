import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { apiCall, apiRequest } from "../lib/api-client";
import { LocalTime } from "../components/local-time";
import type { PqiCommentInfo } from "../../workers/services/feedback";
import { PASSIVE_MIN, PROMOTER_MIN, type SurveySummary } from "../../workers/services/feedback/pure";

export const meta: MetaFunction = () => [{ title: `${ru.survey.adminTitle} — ${ru.app.name}` }];

const t = ru.survey;
const TAKE = 25;

function bandOf(rating: number): string {
  if (rating === 0) return "refusal";
  return rating >= PROMOTER_MIN ? "promoter" : rating >= PASSIVE_MIN ? "passive" : "detractor";
}

const signed = (n: number | null) => (n === null ? t.dash : n > 0 ? `+${n}` : String(n));
const npsClass = (n: number | null) => (n === null ? "" : n > 0 ? "sv-nps-pos" : n < 0 ? "sv-nps-neg" : "");

/** /admin/survey: the satisfaction survey's distribution, NPS-style score over time and the comments. */
export default function AdminSurveyRoute() {
  const [period, setPeriod] = useState<"month" | "week">("month");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [summary, setSummary] = useState<SurveySummary | null>(null);
  const [skip, setSkip] = useState(0);
  const [comments, setComments] = useState<{ items: PqiCommentInfo[]; total: number } | null>(null);

  useEffect(() => {
    apiRequest<SurveySummary>("/api/pqi/summary", { query: { period, from: from || undefined, to: to || undefined } }).then(
      setSummary,
      () => undefined,
    );
  }, [period, from, to]);
  useEffect(() => {
    apiCall<PqiCommentInfo[]>("/api/pqi/comments", { query: { skip, take: TAKE, from: from || undefined, to: to || undefined } }).then(
      ({ data, headers }) => setComments({ items: data, total: Number(headers.get("x-total-count") ?? data.length) }),
      () => undefined,
    );
  }, [skip, from, to]);

  const max = Math.max(1, ...(summary?.distribution.map((d) => d.count) ?? []));
  return (
    <section className="adm-section sv-section" data-testid="admin-survey">
      <div className="adm-filters panel">
        <label className="adm-filter">
          <span>{t.period}</span>
          <select className="input select" value={period} onChange={(e) => setPeriod(e.target.value as "month" | "week")}>
            {Object.entries(t.periods).map(([value, title]) => (
              <option key={value} value={value}>
                {title}
              </option>
            ))}
          </select>
        </label>
        <label className="adm-filter">
          <span>{t.from}</span>
          <input className="input" type="date" value={from} onChange={(e) => (setFrom(e.target.value), setSkip(0))} />
        </label>
        <label className="adm-filter">
          <span>{t.to}</span>
          <input className="input" type="date" value={to} onChange={(e) => (setTo(e.target.value), setSkip(0))} />
        </label>
      </div>

      {summary && summary.answered + summary.refused === 0 ? (
        <div className="panel empty adm-empty-sm">
          <span className="empty-icon">
            <Icon name="admin" size={26} />
          </span>
          <div className="empty-title">{t.empty}</div>
          <div>{t.emptyHint}</div>
        </div>
      ) : (
        summary && (
          <>
            <div className="sv-cards">
              <div className="panel sv-card">
                <div className="sv-card-label">{t.nps}</div>
                <div className={`sv-card-value num ${npsClass(summary.nps)}`} data-testid="survey-nps">
                  {signed(summary.nps)}
                </div>
                <div className="sv-card-hint">{t.npsHint}</div>
              </div>
              <div className="panel sv-card">
                <div className="sv-card-label">{t.average}</div>
                <div className="sv-card-value num">{summary.average?.toLocaleString("ru-RU") ?? t.dash}</div>
              </div>
              <div className="panel sv-card">
                <div className="sv-card-label">{t.answered}</div>
                <div className="sv-card-value num" data-testid="survey-answered">
                  {summary.answered}
                </div>
              </div>
              <div className="panel sv-card">
                <div className="sv-card-label">{t.refused}</div>
                <div className="sv-card-value num">{summary.refused}</div>
              </div>
            </div>
            <div className="sv-grid">
              <div className="panel sv-panel">
                <h3>{t.distribution}</h3>
                <div className="sv-bars" data-testid="survey-distribution">
                  {[...summary.distribution].reverse().map((d) => (
                    <div key={d.rating} style={{ display: "contents" }} data-rating={d.rating}>
                      <span className="muted num">{d.rating === 0 ? t.refusalBar : `★ ${d.rating}`}</span>
                      <div className={`sv-bar ${bandOf(d.rating)}`}>
                        <span style={{ width: `${(d.count / max) * 100}%` }} />
                      </div>
                      <span className="num">{d.count}</span>
                    </div>
                  ))}
                </div>
                <div className="sv-bands">
                  <span>
                    {t.promoters}: <b className="num">{summary.promoters}</b>
                  </span>
                  <span>
                    {t.passives}: <b className="num">{summary.passives}</b>
                  </span>
                  <span>
                    {t.detractors}: <b className="num">{summary.detractors}</b>
                  </span>
                </div>
              </div>
              <div className="panel sv-panel">
                <h3>{t.overTime}</h3>
                <div className="sv-scroll">
                  <table className="table adm-table">
                    <thead>
                      <tr>
                        <th>{t.colPeriod}</th>
                        <th className="num">{t.colAnswered}</th>
                        <th className="num">{t.colAverage}</th>
                        <th className="num">{t.colNps}</th>
                        <th className="num">{t.colRefused}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {[...summary.series].reverse().map((p) => (
                        <tr key={p.period}>
                          <td className="num adm-nowrap">{p.period}</td>
                          <td className="num">{p.answered}</td>
                          <td className="num">{p.average?.toLocaleString("ru-RU") ?? t.dash}</td>
                          <td className={`num ${npsClass(p.nps)}`}>{signed(p.nps)}</td>
                          <td className="num">{p.refused}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </div>
            </div>
          </>
        )
      )}

      <div className="panel">
        <div className="sv-panel" style={{ paddingBottom: 0 }}>
          <h3>{t.comments}</h3>
        </div>
        {comments && comments.items.length === 0 ? (
          <p className="muted sv-panel">{t.noComments}</p>
        ) : (
          <div className="sv-scroll">
            <table className="table adm-table" data-testid="survey-comments">
              <thead>
                <tr>
                  <th>{t.colWhen}</th>
                  <th>{t.colWho}</th>
                  <th className="num">{t.colRating}</th>
                  <th>{t.colComment}</th>
                </tr>
              </thead>
              <tbody>
                {comments?.items.map((c) => (
                  <tr key={c.id}>
                    <td className="num adm-nowrap"><LocalTime iso={c.ctime} /></td>
                    <td className="adm-nowrap">
                      {c.user_id ? (
                        <Link to={`/admin/user/${c.user_id}/assets`}>{c.user_name ?? c.user_login}</Link>
                      ) : (
                        <span className="muted">{t.deletedUser}</span>
                      )}
                    </td>
                    <td className="num adm-nowrap">{c.rating === 0 ? t.refusalBar : `★ ${c.rating}`}</td>
                    <td className="sv-comment">{c.comment}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {comments && <Pager skip={skip} take={TAKE} count={comments.items.length} total={comments.total} onSkip={setSkip} />}
      </div>
    </section>
  );
}
