import { apiRequest } from "../api-client";
import { ApiError } from "../api-error";
import { createGroup } from "../library-api";
import type { PickedFile } from "./pick";
import { foldersToCreate } from "./queue-rules";

/**
 * Recreates the folders dropped files came from under `groupId` (an existing folder of the same name is reused);
 * answers the group id of each folder path ("a/b") and reports each folder's name as it is made.
 */
export async function createFolders(
  groupId: string,
  picked: PickedFile[],
  onFolder: (id: string, name: string) => void,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const path of foldersToCreate(picked.map((p) => p.folders))) {
    const parent = path.length > 1 ? ids.get(path.slice(0, -1).join("/"))! : groupId;
    const name = path[path.length - 1];
    let id: string;
    try {
      id = (await createGroup(parent, name)).group_id;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
      const found = await apiRequest<{ el_id: string; el_type: string }>(`/api/group/entity-by-path/${parent}`, {
        method: "POST",
        body: { path: name },
      });
      id = found.el_id;
    }
    ids.set(path.join("/"), id);
    onFolder(id, name);
  }
  return ids;
}
