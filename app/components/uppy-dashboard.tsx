import Uppy from "@uppy/core";
import "@uppy/core/css/style.min.css";
import "@uppy/dashboard/css/style.min.css";
import ru_RU from "@uppy/locales/lib/ru_RU.js";
import DashboardModal from "@uppy/react/dashboard-modal";
import { useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { rememberFolders } from "../lib/upload-engine/index";

interface Props {
  open: boolean;
  onClose: () => void;
  /** the files the user chose (a folder's files carry their folders) */
  onFiles: (files: File[]) => void;
}

/**
 * The Uppy Dashboard as the file picker of 'Загрузить' (Russian, dark): files and whole folders, from the disk or
 * dropped in. Its upload button hands the files to the upload queue and closes; progress is the status panel's.
 * Loaded lazily (Uppy and its styles stay out of the first page load).
 */
export default function UppyDashboard({ open, onClose, onFiles }: Props) {
  const latest = useRef({ onClose, onFiles });
  latest.current = { onClose, onFiles };
  const [uppy] = useState(() => {
    const picker = new Uppy({ id: "mam-picker", autoProceed: false, allowMultipleUploadBatches: true, locale: ru_RU });
    // The "uploader" of the picker only hands the files over: the engine uploads them from the queue.
    picker.addUploader(async (fileIDs) => {
      const files = picker.getFilesByIds(fileIDs).map((f) => rememberFolders(f.data as File, f.meta.relativePath as string | undefined));
      latest.current.onFiles(files);
    });
    picker.on("complete", () => {
      picker.cancelAll();
      latest.current.onClose();
    });
    return picker;
  });
  useEffect(() => () => uppy.destroy(), [uppy]);

  return (
    <DashboardModal
      uppy={uppy}
      open={open}
      onRequestClose={() => {
        uppy.cancelAll();
        onClose();
      }}
      theme="dark"
      proudlyDisplayPoweredByUppy={false}
      fileManagerSelectionType="both"
      closeModalOnClickOutside
      animateOpenClose
      disablePageScrollWhenModalOpen
      hideProgressDetails
      note={ru.uploads.dashboardNote}
      locale={{ strings: { dropPasteBoth: ru.uploads.dashboardDrop, browseFolders: ru.uploads.dashboardBrowseFolders } }}
      data-testid="uppy-dashboard"
    />
  );
}
