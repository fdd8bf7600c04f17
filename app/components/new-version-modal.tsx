import { useEffect, useState } from "react";
import { BUILD_INFO } from "../../shared/generated/build-info";
import { ru } from "../i18n/ru";

/** How often /version.json is polled (SPEC §9). */
export const VERSION_CHECK_INTERVAL_MS = 5 * 60_000;

/** Polls /version.json and offers a reload when the deployed build differs from the running one. */
export function NewVersionModal() {
  const [available, setAvailable] = useState(false);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [latest, setLatest] = useState<string | null>(null);

  useEffect(() => {
    const check = async () => {
      try {
        const response = await fetch(`/version.json?t=${Date.now()}`, { cache: "no-store" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const { version } = (await response.json()) as { version?: string };
        if (version && version !== BUILD_INFO.version) {
          setLatest(version);
          setAvailable(true);
        }
      } catch (error) {
        // Version check failures are only logged (SPEC §8).
        console.warn("version check failed", error);
      }
    };
    check();
    const timer = setInterval(check, VERSION_CHECK_INTERVAL_MS);
    return () => clearInterval(timer);
  }, []);

  if (!available || dismissed === latest) return null;
  return (
    <div className="modal-backdrop" role="dialog" aria-modal="true" aria-labelledby="new-version-title">
      <div className="modal">
        <h2 id="new-version-title">{ru.newVersion.title}</h2>
        <p>{ru.newVersion.body}</p>
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={() => setDismissed(latest)}>
            {ru.newVersion.later}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
            {ru.newVersion.reload}
          </button>
        </div>
      </div>
    </div>
  );
}
