/**
 * System: health checks, database gauges and the choice of upload server.
 *
 * The domain's public face (decision record 025): code outside workers/services/system/ imports only this file.
 */
export { checkHealth, chooseUploadServer, databaseGauges, uploadServers } from "./system.service";
export { helperDownload, listHelperBuilds, type HelperBuild } from "./helper-builds.service";
