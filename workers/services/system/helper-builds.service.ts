import { HELPER_PLATFORM_IDS, HELPER_PLATFORMS, helperObjectKey, type HelperPlatform } from "../../../shared/helper-platforms";
import type { RequestContext } from "../access";

export interface HelperBuild {
  platform: HelperPlatform;
  file: string;
  size: number;
  uploaded_at: string;
}

/**
 * The helper programs an administrator built and put into R2 (`npm run helper:build -- --upload`): one HEAD per
 * platform, so the «Открыть на компьютере» dialog offers only what can be downloaded.
 */
export async function listHelperBuilds(rc: RequestContext): Promise<HelperBuild[]> {
  const heads = await Promise.all(HELPER_PLATFORM_IDS.map(async (platform) => ({ platform, head: await rc.env.MEDIA.head(helperObjectKey(platform)) })));
  return heads.flatMap(({ platform, head }) =>
    head ? [{ platform, file: HELPER_PLATFORMS[platform].file, size: head.size, uploaded_at: head.uploaded.toISOString() }] : [],
  );
}

/** One platform's program as a download, or null when it has not been uploaded. */
export async function helperDownload(rc: RequestContext, platform: HelperPlatform): Promise<Response | null> {
  const object = await rc.env.MEDIA.get(helperObjectKey(platform));
  if (!object) return null;
  const file = HELPER_PLATFORMS[platform].file;
  return new Response(object.body, {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(object.size),
      "Content-Disposition": `attachment; filename="${file}"`,
      "Cache-Control": "private, no-store",
      ETag: object.httpEtag,
    },
  });
}
