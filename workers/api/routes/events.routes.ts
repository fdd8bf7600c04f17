import { createRouter } from "../router";

/** Global events and worker task decoding (SPEC §7 Storage and worker). */
export const eventsRoutes = createRouter();
