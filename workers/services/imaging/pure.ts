/**
 * Imaging: the perceptual hashes' arithmetic on hashes already made, with no codec behind it (decision record 025's
 * pure face): duplicate search in the API Worker compares hashes without linking a decoder (decision 032).
 */
export { NEAR_DISTANCE, PHASH_BANDS, hammingDistance, phashBands, phashOfHalves } from "./perceptual-hash";
