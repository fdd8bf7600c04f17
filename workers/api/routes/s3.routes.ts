import { createRouter } from "../router";

/** Upload capability: s3 calls. */
export const s3Routes = createRouter();
