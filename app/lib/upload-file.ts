import { uploadController, type PickedFile } from "./upload-engine";

/**
 * The one way files get uploaded: into the user's upload queue, from where the upload engine sends them (multipart
 * and resumable for big files, one signed PUT for small ones), the status panel shows them, and the asset appears
 * in its folder when the server has committed every byte (with a thumbnail made in the browser).
 * Folders the files came from are recreated below `groupId`. Errors are toasted by the API client.
 */
export async function queueUploads(groupId: string, picked: PickedFile[], groupName?: string): Promise<void> {
  try {
    await uploadController().enqueue(groupId, picked, groupName);
  } catch (error) {
    console.warn("files not queued", error);
  }
}
