/**
 * Shop: the watermarked picture's codec work, for the media Worker alone (decision 032). The API Worker imports
 * ./index and never this file, so listing an asset links no image codec (tests/unit/api-worker-graph.test.ts).
 */
export { watermarkedJpeg } from "./watermarked-jpeg";
