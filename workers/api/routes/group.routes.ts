import { createRouter } from "../router";

/** SPEC §7 group calls. */
export const groupRoutes = createRouter();
