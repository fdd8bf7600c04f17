/**
 * The platforms the local disk helper is built for as one self-contained program (`npm run helper:build`,
 * scripts/helper-build.mjs): the id in GET /api/helper/download/{platform}, the R2 key the build uploads to and the
 * file name the user receives. macOS programs must be signed again on the Mac (`codesign --sign -`), see README.
 */
export const HELPER_PLATFORMS = {
  "windows-x64": { file: "mam-helper-windows-x64.exe" },
  "macos-arm64": { file: "mam-helper-macos-arm64" },
  "macos-x64": { file: "mam-helper-macos-x64" },
  "linux-x64": { file: "mam-helper-linux-x64" },
} as const;

export type HelperPlatform = keyof typeof HELPER_PLATFORMS;

export const HELPER_PLATFORM_IDS = Object.keys(HELPER_PLATFORMS) as [HelperPlatform, ...HelperPlatform[]];

/** Where the build puts a platform's program in the MEDIA bucket (no other code lists or touches system/). */
export const helperObjectKey = (platform: HelperPlatform) => `system/helper/${platform}`;
