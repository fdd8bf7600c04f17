import { Fragment, useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { techRows, type TechRow } from "../lib/tech-summary";

/**
 * «Технические данные» of the file's current variant: what the tech-fields task read (dimensions, duration,
 * codecs, camera, lens, exposure, place). Until the task has run the section says so instead of staying empty.
 */
export function TechData({ assetId, variantId }: { assetId: string; variantId: string | null }) {
  const [rows, setRows] = useState<TechRow[] | null>(null);
  useEffect(() => {
    setRows(null);
    if (!variantId) return;
    let current = true;
    // Quiet: a variant still being written answers 404 here, which is «not yet», not an error to toast.
    apiRequest<Record<string, unknown>>(`/api/asset/tech-fields/${assetId}/${variantId}`, { toast: false }).then(
      (fields) => current && setRows(techRows(fields)),
      () => current && setRows([]),
    );
    return () => {
      current = false;
    };
  }, [assetId, variantId]);

  if (!variantId || rows === null) return null;
  return (
    <section className="tech-data" data-testid="tech-data">
      <h3>{ru.techData.title}</h3>
      {rows.length === 0 ? (
        <p className="muted">{ru.techData.pending}</p>
      ) : (
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
    </section>
  );
}
