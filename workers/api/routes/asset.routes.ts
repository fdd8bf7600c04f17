import { createRouter } from "../router";

/** SPEC §7 asset calls. */
export const assetRoutes = createRouter();
