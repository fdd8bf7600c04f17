/**
 * WOPI: editing documents in an Office Online / Collabora host (discovery, proof keys, locks, file operations).
 *
 * The domain's public face (decision record 025): code outside workers/services/wopi/ imports only this file.
 */
export { decodeUtf7 } from "./utf7";
export {
  appUrl,
  callerOnFile,
  checkFileInfo,
  editorFile,
  editorSession,
  fileInfoOf,
  fileOf,
  fileToServe,
  getFile,
  lockInfo,
  lockOperation,
  requireProof,
  resolveCaller,
  textData,
  wopiCredential,
} from "./wopi.service";
export { putFile, putRelative, renameFile } from "./wopi-write.service";
export type { EditorFile, WopiCaller, WopiCredential, WopiFile } from "./wopi.service";
export { loadDiscovery } from "./discovery";
