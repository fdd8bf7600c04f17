import { apiRequest } from "./api-client";
import { ru } from "../i18n/ru";
import { ApiError, errorMessage } from "./api-error";
import { uploadClientPreview } from "./client-preview";
import { showToast } from "./toast";

/** Largest file the single-request upload accepts (the multipart upload lifts this). */
export const SINGLE_UPLOAD_MAX_BYTES = 95 * 1024 * 1024;

interface UploadInfo {
  variant_id: string;
  upload_url: string;
  method: "PUT";
  headers?: Record<string, string>;
}

function put(url: string, file: File, headers: Record<string, string>, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    // The PUT bypasses apiRequest (it needs upload progress), so it shows its own error toast.
    const fail = (error: ApiError) => {
      showToast({ title: ru.errors.title, message: error.message });
      reject(error);
    };
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: keep the text
      }
      fail(new ApiError(xhr.status, body, errorMessage(xhr.status, body, xhr.statusText)));
    };
    xhr.onerror = () => fail(new ApiError(0, null, errorMessage(0, null)));
    xhr.send(file);
  });
}

/**
 * Uploads one file into a group: creates the asset, asks for an upload URL for its first version, PUTs the bytes.
 * The version becomes visible only when the server has stored and checked every byte. Answers the asset id.
 */
export async function uploadFile(groupId: string, file: File, onProgress: (fraction: number) => void): Promise<string> {
  const mime = file.type || "application/octet-stream";
  const { asset_id } = await apiRequest<{ asset_id: string }>("/api/asset/create", {
    method: "POST",
    body: { asset_name: file.name, asset_mime: mime, in_group: groupId },
  });
  try {
    const info = await apiRequest<UploadInfo>(`/api/asset/create-version/${asset_id}`, {
      method: "POST",
      body: { to_group: groupId, variant_type: "initial", file_name: file.name, mime_type: mime, size: file.size },
    });
    await put(info.upload_url, file, { "content-type": mime, ...info.headers }, onProgress);
    await uploadClientPreview(asset_id, file);
    return asset_id;
  } catch (error) {
    // No bytes, no asset: an upload that failed must not leave an empty file behind.
    await apiRequest(`/api/asset/${asset_id}`, { method: "DELETE", toast: false }).catch(() => undefined);
    throw error;
  }
}
