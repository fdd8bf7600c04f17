import { createRouter } from "../router";

/** List records (SPEC §7 Lists). */
export const listsRoutes = createRouter();
