import { createRouter } from "../router";

/** SPEC §7 storage calls. */
export const storageRoutes = createRouter();
