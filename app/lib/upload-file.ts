import { ru } from "../i18n/ru";
import { showToast } from "./toast";
import { uploadController, type PickedFile } from "./upload-engine/index";
import { askClash } from "./upload-engine/clash-prompt";
import { findClashes, nameKeptBothIn, resolveClashes } from "./upload-engine/name-clash";
import { findDuplicates, resolveDuplicates } from "./upload-engine/duplicate-check";
import { askDuplicate } from "./upload-engine/duplicate-prompt";

/**
 * This browser's opt-out of the pre-upload duplicate question (`off`): for scripted sessions that upload the same
 * bytes on purpose, such as the e2e suite, which reuses its fixture files in every test.
 */
export const DUPLICATE_CHECK_KEY = "mam.uploads.duplicateCheck";

function duplicateCheckOn(): boolean {
  try {
    return localStorage.getItem(DUPLICATE_CHECK_KEY) !== "off";
  } catch {
    return true;
  }
}

/**
 * The one way files get uploaded: into the user's upload queue, from where the upload engine sends them (multipart
 * and resumable for big files, one signed PUT for small ones), the status panel shows them, and the asset appears
 * in its folder when the server has committed every byte (with a thumbnail made in the browser).
 * Folders the files came from are recreated below `groupId`. A loose file whose name the folder already holds is
 * asked about first (new version / keep both / skip, once per batch when the user applies the answer to all), then
 * a file whose bytes the library already holds (open it / upload anyway / new version of it).
 * Errors are toasted by the API client.
 */
export async function queueUploads(groupId: string, picked: PickedFile[], groupName?: string): Promise<void> {
  try {
    const clashes = await findClashes(groupId, picked);
    const resolved = clashes.size ? await resolveClashes(picked, clashes, (name, pending) => askClash(name, pending, groupName ?? null)) : picked;
    const named = resolved.some((p) => p.keepBoth) ? await nameKeptBothIn(groupId, resolved) : resolved;
    // The same bytes already in the library (only files the user may read are answered): open, upload anyway, or
    // add as a new version.
    const duplicates = duplicateCheckOn() ? await findDuplicates(named) : new Map();
    const queued = duplicates.size ? (await resolveDuplicates(named, duplicates, askDuplicate)).queue : named;
    const skipped = picked.length - queued.length;
    if (skipped > 0) showToast({ title: ru.uploads.title, message: ru.fileVersions.skippedAll(skipped), kind: "info" });
    if (queued.length) await uploadController().enqueue(groupId, queued, groupName);
  } catch (error) {
    console.warn("files not queued", error);
  }
}

/**
 * «Загрузить новую версию»: `file` becomes the next version of `assetId` through the same queue (status panel,
 * resume, multipart). `groupId` is the folder the asset was opened from (where the panel says it goes).
 */
export async function queueNewVersion(assetId: string, groupId: string | null, file: File, assetName: string): Promise<void> {
  try {
    await uploadController().enqueue(groupId, [{ file, folders: [], versionOf: assetId }]);
    showToast({ title: ru.uploads.title, message: ru.fileVersions.queued(assetName), kind: "info" });
  } catch (error) {
    console.warn("new version not queued", error);
  }
}
