import { data, type ActionFunctionArgs, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useState } from "react";
import { Icon } from "../components/icons";
import { LocalMoment } from "../components/local-moment";
import { Modal } from "../components/modal";
import { SharedMedia, SharedTile } from "../components/shared-media";
import { ru } from "../i18n/ru";
import { loadSharedView, statusOf, unlockSharedView, type SharedView } from "../lib/shared-link.server";

/** Short-link page (SPEC §2): outside the app layout, server-rendered for anonymous visitors (guard rule 2). */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const view = await loadSharedView(request, context, params.id ?? "");
  return data(view, { status: statusOf(view) });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const result = await unlockSharedView(request, context, params.id ?? "");
  if (result instanceof Response) return result;
  // A wrong password re-renders the form with its message; 200 like the form itself (no console error).
  return data(result, { status: 200 });
}

/** Per visitor (cookie, counts): never cached, never indexed. */
export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow" });

export const meta: MetaFunction<typeof loader> = ({ data: view }) => {
  const title = view?.state === "ok" ? view.info.name : ru.sharing.pageTitle;
  const tags = [
    { title: `${title} — ${ru.app.name}` },
    { name: "robots", content: "noindex, nofollow" },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: ru.app.name },
    { property: "og:title", content: title },
    { property: "og:description", content: ru.sharing.pageTitle },
    { name: "twitter:title", content: title },
  ];
  if (view?.state === "ok") {
    const first = view.info.asset ?? view.info.group?.items[0];
    // Password links never reach here without the cookie, so their previews never end up in a messenger's cache.
    const picture = first && (first.mimetype.startsWith("image/") ? first.media_url : first.preview_url);
    if (picture) {
      const image = new URL(picture, view.origin).href;
      tags.push({ property: "og:image", content: image }, { name: "twitter:card", content: "summary_large_image" }, { name: "twitter:image", content: image });
    } else tags.push({ name: "twitter:card", content: "summary" });
  }
  return tags;
};

function Brand() {
  return (
    <div className="shared-brand">
      <span className="logo">
        <Icon name="logo" size={18} />
      </span>
      {ru.app.name}
    </div>
  );
}

function Closed({ title, text, icon }: { title: string; text: React.ReactNode; icon: "clock" | "lock" | "other" }) {
  return (
    <main className="auth-page">
      <div className="auth-card shared-closed" data-testid="shared-closed">
        <Brand />
        <span className="shared-closed-icon" aria-hidden="true">
          <Icon name={icon} size={28} />
        </span>
        <h1 className="auth-title">{title}</h1>
        <p className="auth-subtitle">{text}</p>
      </div>
    </main>
  );
}

function PasswordForm({ error }: { error?: string }) {
  const busy = useNavigation().state !== "idle";
  return (
    <main className="auth-page">
      <Form method="post" className="auth-card" data-testid="shared-password">
        <Brand />
        <h1 className="auth-title">{ru.sharing.passwordTitle}</h1>
        <p className="auth-subtitle">{ru.sharing.passwordHint}</p>
        <div className="field">
          <label htmlFor="sl-password">{ru.sharing.passwordLabel}</label>
          <input id="sl-password" className="input" type="password" name="password" required maxLength={256} autoComplete="off" autoFocus />
        </div>
        {error && (
          <p className="auth-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {ru.sharing.open}
        </button>
      </Form>
    </main>
  );
}

export default function SharedLinkRoute() {
  const view = useLoaderData<typeof loader>() as SharedView;
  const failed = useActionData<typeof action>() as { error: string } | undefined;
  const [open, setOpen] = useState<number | null>(null);
  switch (view.state) {
    case "password":
      return <PasswordForm error={failed?.error} />;
    case "revoked":
      return <Closed title={ru.sharing.revokedTitle} text={ru.sharing.revokedText} icon="lock" />;
    case "expired":
      return (
        <Closed title={ru.sharing.expiredTitle} text={<>{ru.sharing.expiredAt} <LocalMoment iso={view.atIso} fallback={view.at} /></>} icon="clock" />
      );
    case "not_yet":
      return (
        <Closed title={ru.sharing.notYetTitle} text={<>{ru.sharing.opensAt} <LocalMoment iso={view.atIso} fallback={view.at} /></>} icon="clock" />
      );
    case "not_found":
      return <Closed title={ru.sharing.notFoundTitle} text={ru.sharing.notFoundText} icon="other" />;
  }
  const { info, until, untilIso } = view;
  const group = info.group;
  const current = group && open != null ? group.items[open] : null;
  const here = (page: number) => {
    const query = new URLSearchParams();
    if (group && group.folder_id !== info.entity_id) query.set("folder", group.folder_id);
    if (page > 0) query.set("page", String(page));
    const text = query.toString();
    return text ? `?${text}` : ".";
  };
  const folderHref = (id: string) => (id === info.entity_id ? `/sl/${info.id}` : `/sl/${info.id}?folder=${id}`);
  const inSubfolder = group && group.path.length > 1;
  return (
    <main className="shared-page">
      <header className="shared-head">
        <Brand />
        <div className="shared-title">
          {inSubfolder && (
            <nav className="breadcrumbs shared-crumbs" aria-label={ru.sharing.crumbs}>
              {group.path.slice(0, -1).map((p) => (
                <span key={p.group_id}>
                  <Link to={folderHref(p.group_id)}>{p.name}</Link>
                  <span className="sep" aria-hidden="true">
                    /
                  </span>
                </span>
              ))}
            </nav>
          )}
          <h1>{inSubfolder ? group.path[group.path.length - 1].name : info.name}</h1>
          <p className="muted">
            {ru.sharing.sharedBy(info.creator_name)}
            {until && untilIso && (
              <>
                {` · ${ru.sharing.validUntil} `}
                <LocalMoment iso={untilIso} fallback={until} />
              </>
            )}
          </p>
        </div>
        {group?.zip_url && (
          <a className="btn" href={group.zip_url} download data-testid="shared-zip">
            <Icon name="download" size={16} />
            {ru.sharing.downloadFolder}
          </a>
        )}
      </header>
      {info.asset && <SharedMedia asset={info.asset} />}
      {group && (
        <section>
          {group.folders.length > 0 && (
            <div className="shared-folders" data-testid="shared-folders">
              {group.folders.map((f) => (
                <Link key={f.group_id} className="shared-folder" to={folderHref(f.group_id)} data-folder={f.group_id}>
                  <Icon name="folder" size={20} className="folder-icon" />
                  <span className="shared-tile-name">{f.name}</span>
                </Link>
              ))}
            </div>
          )}
          {group.items.length === 0 && group.folders.length === 0 && group.page === 0 ? (
            <p className="muted">{ru.sharing.emptyGroup}</p>
          ) : (
            group.items.length > 0 && (
              <div className="shared-grid">
                {group.items.map((item, i) => (
                  <SharedTile key={item.asset_id} asset={item} onOpen={() => setOpen(i)} />
                ))}
              </div>
            )
          )}
          {(group.page > 0 || group.has_more) && (
            <nav className="shared-pager">
              {group.page > 0 ? (
                <Link className="btn" to={here(group.page - 1)}>
                  {ru.sharing.previous}
                </Link>
              ) : (
                <span />
              )}
              <span className="muted">{ru.sharing.pageOf(group.page + 1)}</span>
              {group.has_more ? (
                <Link className="btn" to={here(group.page + 1)}>
                  {ru.sharing.next}
                </Link>
              ) : (
                <span />
              )}
            </nav>
          )}
        </section>
      )}
      {current && (
        <Modal title={current.name} onClose={() => setOpen(null)} wide>
          <SharedMedia asset={current} inDialog />
        </Modal>
      )}
    </main>
  );
}
