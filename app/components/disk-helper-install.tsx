import { useEffect, useState } from "react";
import type { HelperPlatform } from "../../shared/helper-platforms";
import { ru } from "../i18n/ru";
import { apiBlobUrl, apiRequest } from "../lib/api-client";
import { ownPlatformCount, platformsByLikelihood } from "../lib/helper-platform";
import { formatBytes } from "../lib/media-kind";
import { showToast } from "../lib/toast";
import { useCurrentUser } from "../lib/use-current-user";

const t = ru.diskHelper;

interface HelperBuild {
  platform: HelperPlatform;
  file: string;
  size: number;
}

/** Saves the program through an object URL: the download needs the bearer, which a plain link cannot send. */
async function download(build: HelperBuild): Promise<void> {
  const url = await apiBlobUrl(`/api/helper/download/${build.platform}`);
  if (!url) throw new Error(t.downloadFailed);
  const link = document.createElement("a");
  link.href = url;
  link.download = build.file;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function PlatformSteps({ platform, build }: { platform: HelperPlatform; build: HelperBuild | undefined }) {
  const [busy, setBusy] = useState(false);
  const mac = platform.startsWith("macos");
  const steps = t.steps[mac ? "mac" : platform] ?? [];
  const start = async (b: HelperBuild) => {
    setBusy(true);
    try {
      await download(b);
    } catch (error) {
      showToast({ title: t.downloadFailed, message: error instanceof Error ? error.message : ru.errors.unknown });
    } finally {
      setBusy(false);
    }
  };
  if (!build) return <p className="muted">{t.notUploadedOther}</p>;
  return (
    <>
      <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void start(build)} data-testid={`helper-download-${platform}`}>
        {busy ? t.downloading : t.download(formatBytes(build.size))}
      </button>
      <ol>
        {steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {(mac || platform === "linux-x64") && (
        <pre>
          <code>{mac ? t.macCommands(build.file) : t.linuxCommand(build.file)}</code>
        </pre>
      )}
    </>
  );
}

/**
 * How to get the helper in the user's terms: the programs an administrator uploaded (GET /api/helper/builds), the
 * visitor's own system first with its steps (download, run, allow), the other systems folded away.
 */
export function DiskHelperInstall() {
  // An administrator is the one who uploads the programs: he is told how, not to ask himself.
  const admin = useCurrentUser()?.isAdmin === true;
  const [builds, setBuilds] = useState<HelperBuild[] | null>(null);
  const [order, setOrder] = useState<{ own: HelperPlatform[]; other: HelperPlatform[] } | null>(null);
  useEffect(() => {
    const all = platformsByLikelihood(navigator.userAgent);
    const own = ownPlatformCount(navigator.userAgent);
    setOrder({ own: all.slice(0, own), other: all.slice(own) });
    apiRequest<HelperBuild[]>("/api/helper/builds", { toast: false }).then(setBuilds, () => setBuilds([]));
  }, []);
  if (!builds || !order) return null;
  const find = (p: HelperPlatform) => builds.find((b) => b.platform === p);
  const ownMissing = order.own.length === 0 || order.own.every((p) => !find(p));
  return (
    <div className="disk-helper-platforms">
      {ownMissing && (
        <p className="disk-helper-missing" data-testid="disk-helper-not-uploaded">
          {admin ? ru.viewerTypes.helperNotUploadedAdmin : t.notUploaded}
        </p>
      )}
      {order.own
        .filter((p) => find(p))
        .map((p) => (
          <section key={p} aria-label={t.platforms[p]} data-testid="disk-helper-own-platform">
            <h4>
              {t.platforms[p]} — {t.yourSystem}
            </h4>
            <PlatformSteps platform={p} build={find(p)} />
          </section>
        ))}
      <p className="muted">{t.whereFolders}</p>
      <details className="disk-helper-others">
        <summary>{t.otherSystems}</summary>
        {[...order.own.filter((p) => !find(p)), ...order.other].map((p) => (
          <section key={p} aria-label={t.platforms[p]}>
            <h4>{t.platforms[p]}</h4>
            <PlatformSteps platform={p} build={find(p)} />
          </section>
        ))}
      </details>
    </div>
  );
}
