import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { useState } from "react";
import { AssetViewer } from "../components/asset-viewer";
import { RouteErrorPage } from "../components/route-error-page";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { levelsOrNone } from "../lib/levels.server";
import { requireActor } from "../lib/session.server";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.mam.asset} — ${ru.app.name}` }];

/** The ids, and the caller's levels on the file, decided on the server so the player asks only for what he may play. */
export async function loader({ params, request, context }: LoaderFunctionArgs) {
  if (params.id && !ID_PATTERN.test(params.id)) throw new Response(ru.assets.notFound, { status: 404 });
  // Opened from a collection: a malformed id is ignored (the viewer then simply has no collection to step through).
  const collection = new URL(request.url).searchParams.get("collection");
  const collectionId = collection && ID_PATTERN.test(collection) ? collection : null;
  if (!params.id) return { assetId: null, collectionId, levels: null };
  const actor = await requireActor(request, context);
  return { assetId: params.id, collectionId, levels: await levelsOrNone(context.rc, actor, params.id, "asset") };
}

/** Asset: a file by id (e.g. from a link or the API); without an id, a field to open one. */
export default function AssetRoute() {
  const { assetId, collectionId, levels } = useLoaderData<typeof loader>();
  if (assetId) return <AssetViewer key={assetId} assetId={assetId} collectionId={collectionId ?? undefined} levels={levels} />;
  return <OpenById />;
}

/** The field to open a file by its id; answers a malformed id with the app's own message (no browser bubble). */
function OpenById() {
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <PageHeader title={ru.mam.asset} subtitle={ru.library.openByIdHint} />
      <Form
        className="inline-form panel pad"
        method="get"
        action="/asset"
        onSubmit={(e) => {
          e.preventDefault();
          const id = String(new FormData(e.currentTarget).get("id") ?? "")
            .trim()
            .toLowerCase();
          if (ID_PATTERN.test(id)) window.location.assign(`/asset/${id}`);
          else setError(ru.library.assetIdInvalid);
        }}
        noValidate
      >
        <input
          className="input"
          name="id"
          placeholder={ru.library.assetId}
          pattern="[0-9a-fA-F]{32}"
          required
          aria-label={ru.library.assetId}
          aria-invalid={error ? true : undefined}
          onChange={() => error && setError(null)}
        />
        <button type="submit" className="btn btn-primary">
          {ru.library.open}
        </button>
        {error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )}
      </Form>
    </>
  );
}

/** A malformed file id (the loader's 404) or a crash still answers in the shell, with the way back. */
export function ErrorBoundary() {
  return <RouteErrorPage notFound={{ title: ru.screens.assetUnavailable, hint: ru.screens.assetUnavailableHint }} />;
}
