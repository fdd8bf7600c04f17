import { useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { showToast } from "../lib/toast";
import { SINGLE_UPLOAD_MAX_BYTES, uploadFile } from "../lib/upload-file";
import { formatBytes } from "../lib/media-kind";
import { Icon } from "./icons";

export interface UploadProgress {
  name: string;
  fraction: number;
}

/** Uploads files one after another into the group; reports progress and calls `onUploaded` per finished file. */
export function useUploader(groupId: string, onUploaded: () => void) {
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  async function upload(files: File[]) {
    for (const file of files) {
      if (file.size > SINGLE_UPLOAD_MAX_BYTES) {
        showToast({ title: ru.errors.title, message: ru.library.tooLarge(file.name, formatBytes(SINGLE_UPLOAD_MAX_BYTES)) });
        continue;
      }
      setProgress({ name: file.name, fraction: 0 });
      try {
        await uploadFile(groupId, file, (fraction) => setProgress({ name: file.name, fraction }));
        onUploaded();
      } catch {
        // uploadFile has already shown the error; go on with the next file
      }
    }
    setProgress(null);
  }
  return { progress, upload };
}

export function UploadButton({ onFiles, disabled }: { onFiles: (files: File[]) => void; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
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
      <button type="button" className="btn btn-primary" disabled={disabled} onClick={() => input.current?.click()}>
        <Icon name="upload" size={16} />
        {ru.library.upload}
      </button>
    </>
  );
}

export function UploadProgressBar({ progress }: { progress: UploadProgress }) {
  return (
    <div className="upload-progress" role="status">
      <span>{ru.library.uploading(progress.name)}</span>
      <span className="progress">
        <span style={{ width: `${Math.round(progress.fraction * 100)}%` }} />
      </span>
      <span className="num">{Math.round(progress.fraction * 100)}%</span>
    </div>
  );
}
