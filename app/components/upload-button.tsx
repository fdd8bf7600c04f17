import { Component, lazy, Suspense, useRef, useState, type ReactNode } from "react";
import { ru } from "../i18n/ru";
import { GuardedButton } from "./guarded-button";
import { Icon } from "./icons";

/** The Uppy Dashboard, loaded on the first click (Uppy and its styles are not part of the page's first load). */
const UppyDashboard = lazy(() => import("./uppy-dashboard"));

/** When the Dashboard's code cannot load (offline after a deploy), the plain file picker takes over. */
class DashboardBoundary extends Component<{ onFail: () => void; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  componentDidCatch(error: unknown) {
    console.warn("upload dashboard not loaded", error);
    this.props.onFail();
  }
  render() {
    return this.state.failed ? null : this.props.children;
  }
}

/**
 * 'Загрузить': opens the Uppy Dashboard to pick files or whole folders; the chosen files go to `onFiles` (and from
 * there into the upload queue). A plain file input stays behind it, for scripted use and for a browser where the
 * Dashboard cannot load.
 */
export function UploadButton({
  onFiles,
  disabled,
  refused = null,
}: {
  onFiles: (files: File[]) => void;
  disabled?: boolean;
  /** why the caller may not upload here: the button stays, disabled, with the reason as its tooltip */
  refused?: string | null;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [dashboard, setDashboard] = useState<"unused" | "open" | "closed" | "failed">("unused");
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        data-testid="upload-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = "";
          if (files.length) onFiles(files);
        }}
      />
      <GuardedButton
        className="btn btn-primary"
        reason={refused}
        disabled={disabled}
        onClick={() => (dashboard === "failed" ? input.current?.click() : setDashboard("open"))}
      >
        <Icon name="upload" size={16} />
        {ru.library.upload}
      </GuardedButton>
      {dashboard !== "unused" && dashboard !== "failed" && (
        <Suspense fallback={null}>
          <DashboardBoundary
            onFail={() => {
              setDashboard("failed");
              input.current?.click();
            }}
          >
            <UppyDashboard open={dashboard === "open"} onClose={() => setDashboard("closed")} onFiles={onFiles} />
          </DashboardBoundary>
        </Suspense>
      )}
    </>
  );
}
