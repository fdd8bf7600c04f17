import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { AssetViewer } from "../components/asset-viewer";
import { RouteErrorPage } from "../components/route-error-page";
import { ru } from "../i18n/ru";
import { levelsOrNone } from "../lib/levels.server";
import { requireActor } from "../lib/session.server";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.mam.viewer} — ${ru.app.name}` }];

/** The ids, and the caller's levels on the file, decided on the server so the first paint offers only what is allowed. */
export async function loader({ params, request, context }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.idGroup ?? "") || !ID_PATTERN.test(params.id ?? "")) throw new Response(ru.assets.notFound, { status: 404 });
  const actor = await requireActor(request, context);
  return { groupId: params.idGroup!, assetId: params.id!, levels: await levelsOrNone(context.rc, actor, params.id!, "asset") };
}

/** MamViewerAsset: an asset opened from a folder; 'back' returns to that folder. */
export default function MamViewerAssetRoute() {
  const { groupId, assetId, levels } = useLoaderData<typeof loader>();
  return <AssetViewer key={assetId} assetId={assetId} groupId={groupId} levels={levels} />;
}

/** A malformed file id (the loader's 404) or a crash still answers in the shell, with the way back. */
export function ErrorBoundary() {
  return <RouteErrorPage notFound={{ title: ru.screens.assetUnavailable, hint: ru.screens.assetUnavailableHint }} />;
}
