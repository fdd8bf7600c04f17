import { splitRelativePath } from "./queue-rules";

/**
 * Files the user picked or dropped, each with the folders below the target folder it came from (a dropped or picked
 * folder recreates its sub-folders).
 */
export interface PickedFile {
  file: File;
  /** folder names from the target folder down, e.g. ["Съёмка", "День 1"]; empty for a loose file */
  folders: string[];
  /** upload it as a new version of this asset instead of a new file (the same-name choice, or the viewer) */
  versionOf?: string;
  /** «Оставить оба» was chosen for its name clash: it is queued under a free numbered name (`nameKeptBoth`) */
  keepBoth?: boolean;
}

/** Folders of files handed over as plain `File`s (the Uppy Dashboard knows them; a `File` cannot carry them). */
const knownFolders = new WeakMap<File, string[]>();

/** Remembers where a picked file came from, for `pickedFromFiles`. */
export function rememberFolders(file: File, relativePath: string | null | undefined): File {
  knownFolders.set(file, splitRelativePath(relativePath));
  return file;
}

/**
 * Picked files with their folders: remembered ones (the Dashboard), else `webkitRelativePath` (an input with
 * `webkitdirectory`), else none.
 */
export function pickedFromFiles(files: Iterable<File>): PickedFile[] {
  return [...files].map((file) => ({ file, folders: knownFolders.get(file) ?? splitRelativePath(file.webkitRelativePath) }));
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walk(entry: FileSystemEntry, folders: string[], out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    out.push({ file: await entryFile(entry as FileSystemFileEntry), folders });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const inside = [...folders, entry.name];
  // readEntries answers in batches (100 in Chromium) until it answers an empty one.
  for (;;) {
    const batch = await readEntries(reader);
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, inside, out);
  }
}

/**
 * The files of a drop, folders walked recursively. The entries are taken synchronously (the DataTransfer is only
 * readable during the drop event), then read.
 */
export async function pickedFromDrop(dataTransfer: DataTransfer): Promise<PickedFile[]> {
  const entries = [...dataTransfer.items].filter((item) => item.kind === "file").map((item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.length === 0 || entries.some((e) => e === null)) return pickedFromFiles(dataTransfer.files);
  const out: PickedFile[] = [];
  for (const entry of entries) await walk(entry!, [], out);
  return out;
}
