import type { RequestContext } from "../access";
import type { MultipartStore } from "../storage";
import { getStorageBackend } from "../storage";

export type { MultipartStore } from "../storage";

/** The multipart uploads of a storage (R2 or an external S3 storage); 404/503 as `getStorageBackend`. */
export async function multipartStoreFor(rc: RequestContext, storageId: string): Promise<MultipartStore> {
  return (await getStorageBackend(rc, storageId)).multipart;
}
