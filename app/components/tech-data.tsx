import { Fragment, useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { stagesOf, techRows, type StageOutcome, type TechRow } from "../lib/tech-summary";

interface Loaded {
  rows: TechRow[];
  stages: ReturnType<typeof stagesOf>;
  /** the tech-fields task ran before stages were recorded (its fields have `mime`): it has ended, with nothing to show */
  ranBefore: boolean;
}

/** One stage's line: done, not needed (why), failed (why), or still running. */
function stageText(stage: StageOutcome | undefined): string {
  if (!stage) return ru.techData.stageState.pending;
  if (stage.state === "done") return ru.techData.stageState.done;
  const why = stage.reason ?? "";
  return stage.state === "failed" ? ru.techData.stageState.failed(why) : ru.techData.stageState.not_applicable(why);
}

/**
 * «Технические данные» of the file's current variant: what the tech-fields task read (dimensions, duration,
 * codecs, camera, lens, exposure, place), and how each processing stage ended (issue 25: done, not applicable with
 * why, or failed with why). «Ещё не извлечены» shows only while the tech-fields task has not ended with this file.
 */
export function TechData({ assetId, variantId }: { assetId: string; variantId: string | null }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  useEffect(() => {
    setLoaded(null);
    if (!variantId) return;
    let current = true;
    // Quiet: a variant still being written answers 404 here, which is «not yet», not an error to toast.
    apiRequest<Record<string, unknown>>(`/api/asset/tech-fields/${assetId}/${variantId}`, { toast: false }).then(
      (fields) => current && setLoaded({ rows: techRows(fields), stages: stagesOf(fields), ranBefore: typeof fields.mime === "string" }),
      () => current && setLoaded({ rows: [], stages: {}, ranBefore: false }),
    );
    return () => {
      current = false;
    };
  }, [assetId, variantId]);

  if (!variantId || loaded === null) return null;
  const { rows, stages, ranBefore } = loaded;
  const tech = stages.tech;
  let note: string | null = null;
  if (!tech && rows.length === 0) note = ranBefore ? ru.techData.notApplicable(ru.techData.noFields) : ru.techData.pending;
  else if (tech?.state === "failed") note = ru.techData.failed(tech.reason ?? "");
  else if (rows.length === 0) note = ru.techData.notApplicable(tech?.reason ?? "");
  return (
    <section className="tech-data" data-testid="tech-data">
      <h3>{ru.techData.title}</h3>
      {note && (
        <p className="muted" data-stage="tech" data-state={tech?.state ?? "pending"}>
          {note}
        </p>
      )}
      {rows.length > 0 && (
        <dl className="info-list">
          {rows.map((row) => (
            <Fragment key={row.key}>
              <dt>{row.label}</dt>
              <dd data-tech={row.key}>
                {row.href ? (
                  <a href={row.href} target="_blank" rel="noreferrer" title={ru.techData.openMap}>
                    {row.value}
                  </a>
                ) : (
                  row.value
                )}
              </dd>
            </Fragment>
          ))}
        </dl>
      )}
      {tech && (
        <dl className="info-list" aria-label={ru.techData.stages}>
          {(["text", "preview"] as const).map((key) => (
            <Fragment key={key}>
              <dt>{ru.techData.stage[key]}</dt>
              <dd data-stage={key} data-state={stages[key]?.state ?? "pending"}>
                {stageText(stages[key])}
              </dd>
            </Fragment>
          ))}
        </dl>
      )}
    </section>
  );
}
