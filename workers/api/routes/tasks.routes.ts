import { createRouter } from "../router";

/** Tasks (SPEC §7 Tasks). */
export const tasksRoutes = createRouter();
