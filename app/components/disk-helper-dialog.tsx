import { useCallback, useEffect, useState } from "react";
import type { HelperStatus, MountStatus } from "../../helper/schemas";
import { ru } from "../i18n/ru";
import { DiskHelperError, helperStatus, mountOnDisk } from "../lib/disk-helper";
import { showToast } from "../lib/toast";
import { DiskHelperInstall } from "./disk-helper-install";
import { Modal } from "./modal";

const t = ru.diskHelper;

type Probe = { kind: "checking" } | { kind: "running"; status: HelperStatus } | { kind: "absent"; message: string };

/** One mount's local folder and sync state. */
function MountFacts({ mount }: { mount: MountStatus }) {
  return (
    <dl className="disk-helper-facts" data-testid="disk-helper-mount">
      <dt>{t.localPath}</dt>
      <dd>
        <code>{mount.path}</code>
      </dd>
      <dt>{t.state}</dt>
      <dd>
        {t.states[mount.state] ?? mount.state}
        {mount.last_error ? ` — ${mount.last_error}` : ""}
      </dd>
      <dd className="muted">{t.files(mount.files)}</dd>
    </dl>
  );
}

/**
 * «Открыть на компьютере» for one folder: asks the local disk helper for its status, mounts the folder (token first,
 * then the mount) and shows where it lives on disk. A failure shows SPEC §8's toast with the helper's error text; a
 * helper that does not answer also gets the install steps (the downloadable program, DiskHelperInstall).
 */
export function DiskHelperDialog({ helperUrl, groupId, folderName, onClose }: { helperUrl: string; groupId: string; folderName: string; onClose: () => void }) {
  const [probe, setProbe] = useState<Probe>({ kind: "checking" });
  const [name, setName] = useState(folderName);
  const [busy, setBusy] = useState(false);
  const [mounted, setMounted] = useState<MountStatus | null>(null);

  const check = useCallback(() => {
    setProbe({ kind: "checking" });
    helperStatus(helperUrl).then(
      (status) => setProbe({ kind: "running", status }),
      (error: unknown) => setProbe({ kind: "absent", message: error instanceof Error ? error.message : t.unreachable }),
    );
  }, [helperUrl]);
  useEffect(check, [check]);

  // While the dialog is open with a running helper, its status (user, the mount's sync state) stays current.
  const running = probe.kind === "running";
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      helperStatus(helperUrl).then(
        (status) => setProbe({ kind: "running", status }),
        () => undefined,
      );
    }, 2_000);
    return () => clearInterval(timer);
  }, [running, helperUrl]);

  const existing = probe.kind === "running" ? probe.status.mounts.find((m) => m.group_id === groupId) : undefined;
  const shown = existing ?? mounted ?? null;

  const mount = async () => {
    setBusy(true);
    try {
      setMounted(await mountOnDisk(helperUrl, groupId, name.trim()));
      setProbe({ kind: "running", status: await helperStatus(helperUrl) });
    } catch (error) {
      const message = error instanceof Error ? error.message : ru.errors.unknown;
      showToast({ title: t.mountFailed, message });
      if (error instanceof DiskHelperError && error.unreachable) setProbe({ kind: "absent", message });
    } finally {
      setBusy(false);
    }
  };

  const footer = shown ? (
    <button type="button" className="btn btn-primary" onClick={onClose}>
      {ru.common.close}
    </button>
  ) : (
    <>
      <button type="button" className="btn btn-ghost" onClick={onClose}>
        {ru.common.cancel}
      </button>
      {probe.kind === "absent" && (
        <button type="button" className="btn" onClick={check}>
          {t.retry}
        </button>
      )}
      <button type="button" className="btn btn-primary" disabled={busy || name.trim() === "" || probe.kind !== "running"} onClick={() => void mount()}>
        {busy ? t.mounting : t.mount}
      </button>
    </>
  );

  return (
    <Modal title={t.title(folderName)} onClose={onClose} footer={footer} wide>
      <div className="disk-helper" data-testid="disk-helper-dialog">
        <p className="muted">{t.intro}</p>
        {probe.kind === "checking" && <p role="status">{t.checking}</p>}
        {probe.kind === "running" && (
          <p role="status" className="disk-helper-status" data-testid="disk-helper-status">
            <span className="status-dot ok" aria-hidden="true" />
            {t.running(probe.status.version)} · {probe.status.user ? t.signedInAs(probe.status.user.name) : t.noUser}
          </p>
        )}
        {probe.kind === "absent" && (
          <div className="disk-helper-install" data-testid="disk-helper-install">
            <p role="status" className="disk-helper-status">
              <span className="status-dot off" aria-hidden="true" />
              {t.notRunning}
            </p>
            <h3>{t.installTitle}</h3>
            <DiskHelperInstall />
          </div>
        )}
        {shown ? (
          <>
            <p className="disk-helper-done" data-testid="disk-helper-done">
              {mounted ? t.mounted : t.alreadyMounted}
            </p>
            <MountFacts mount={shown} />
          </>
        ) : (
          <label className="field">
            <span>{t.folderName}</span>
            <input className="input" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          </label>
        )}
      </div>
    </Modal>
  );
}
