import { createRouter } from "../router";

/** Users, robots and their tokens, settings and bookmarks (SPEC §7 Users). */
export const userRoutes = createRouter();
