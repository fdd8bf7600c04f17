import { createRouter } from "../router";

/** SPEC §7 tags calls. */
export const tagsRoutes = createRouter();
