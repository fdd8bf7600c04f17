import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { canDo, type Levels } from "../lib/abilities";
import { HistoryList, historyPage } from "./history-list";

const t = ru.fileHistory;

/**
 * «История» of a file in the viewer's info panel: who uploaded, replaced, restored, renamed, moved, retagged,
 * shared, downloaded it, and how many times it was downloaded. Shown to whoever manages the file's rights (`acl`;
 * administrators hold every level) — the API refuses everyone else, so nobody else is even asked.
 */
export function AssetHistory({ assetId, levels }: { assetId: string; levels: Levels }) {
  const allowed = canDo(levels, "access");
  const [downloads, setDownloads] = useState<number | null>(null);
  useEffect(() => {
    if (!allowed) return;
    setDownloads(null);
    historyPage(assetId, "asset.download", 0, 1).then(
      (page) => setDownloads(page.total),
      () => setDownloads(null),
    );
  }, [assetId, allowed]);
  if (!allowed) return null;
  return (
    <section className="asset-history" data-testid="asset-history">
      <h3>{t.title}</h3>
      {downloads !== null && (
        <p className="history-downloads" data-testid="download-count">
          {t.downloads(downloads)}
        </p>
      )}
      <HistoryList entity={assetId} action="asset.*" />
    </section>
  );
}
