import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { EditorScreen } from "../components/editor/editor-screen";
import { ru } from "../i18n/ru";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.screens.editor} — ${ru.app.name}` }];

export function loader({ params, request }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.id ?? "")) throw new Response(ru.assets.notFound, { status: 404 });
  const action = new URL(request.url).searchParams.get("action") === "view" ? "view" : "edit";
  return { assetId: params.id!, action } as const;
}

/** Document editor: outside the main layout (SPEC §2), behind sign-in like every non-public route. */
export default function EditorRoute() {
  const { assetId, action } = useLoaderData<typeof loader>();
  return <EditorScreen key={`${assetId}:${action}`} assetId={assetId} action={action} />;
}
