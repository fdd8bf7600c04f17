import { createRouter } from "../router";

/** User-defined workflows (SPEC §7). */
export const udwfRoutes = createRouter();
