import { useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { showToast } from "../lib/toast";
import { Icon } from "./icons";

type ZipAnswer = { url: string; expires_at: string } | { job_id: string };

/**
 * «Скачать» for a selection of files and folders (the selection bar, a folder's toolbar, a collection): asks the
 * API for a short-lived signed link to the ZIP and hands it to the browser, which downloads it natively (progress,
 * pause and resume in its own download list). A selection too large for one request comes back as an export task.
 */
export function ZipDownloadButton(p: {
  assetIds: string[];
  groupIds: string[];
  /** a collection: its items the caller may read, or those of `assetIds` among them */
  collectionId?: string;
  className?: string;
  label?: string;
  testId?: string;
}) {
  const [busy, setBusy] = useState(false);
  async function download() {
    setBusy(true);
    try {
      const answer = await apiRequest<ZipAnswer>("/api/zip", {
        method: "POST",
        body: p.collectionId ? { collection_id: p.collectionId, asset_ids: p.assetIds, as: "url" } : { asset_ids: p.assetIds, group_ids: p.groupIds, as: "url" },
      });
      if ("url" in answer) {
        const a = document.createElement("a");
        a.href = answer.url;
        a.rel = "noopener";
        a.setAttribute("download", "");
        document.body.appendChild(a);
        a.click();
        a.remove();
      } else {
        showToast({ kind: "info", title: ru.zipDownload.queuedTitle, message: ru.zipDownload.queued });
      }
    } catch {
      // apiRequest has shown the error as a toast.
    } finally {
      setBusy(false);
    }
  }
  return (
    <button
      type="button"
      className={p.className ?? "btn"}
      data-testid={p.testId ?? "zip-download"}
      disabled={busy || (!p.collectionId && p.assetIds.length + p.groupIds.length === 0)}
      onClick={() => void download()}
    >
      <Icon name="download" size={16} />
      {busy ? ru.zipDownload.preparing : (p.label ?? ru.zipDownload.download)}
    </button>
  );
}
