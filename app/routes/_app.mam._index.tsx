import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useNavigate, useRevalidator } from "@remix-run/react";
import { useState } from "react";
import { AccessModal } from "../components/access/access-modal";
import { ContextMenu, longPress, type MenuAt } from "../components/context-menu";
import { DiskHelperDialog } from "../components/disk-helper-dialog";
import { GuardedButton } from "../components/guarded-button";
import { menuItems } from "../components/member-menu";
import { ConfirmDialog, NameDialog } from "../components/modal";
import { MoveDialog } from "../components/move-dialog";
import { ShareDialog } from "../components/share-dialog";
import { createGroup, moveMembers, renameGroup, trashGroup } from "../lib/library-api";
import { ROOT_GROUP_ID } from "../lib/root-group";
import { Icon } from "../components/icons";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { canDo, denial, type Action } from "../lib/abilities";
import { useDiskHelperUrl } from "../lib/disk-helper";
import { useIsDesktop } from "../lib/helper-platform";
import { levelsOfEach } from "../lib/levels.server";
import { requireActor } from "../lib/session.server";
import { LocalTime } from "../components/local-time";
import { userAbilities } from "../../workers/services/access";
import { GROUP_PAGE_SIZE, getGroup, listAvailableRoot, listMembers } from "../../workers/services/library";
import { rootsWhereTheyLive } from "../../workers/api/library-reads";
import { mediaKind } from "../lib/media-kind";

export const meta: MetaFunction = () => [{ title: `${ru.mam.title} — ${ru.app.name}` }];

/**
 * The virtual root: the top-level groups the user may see, `?pages=n` shows the first n pages of 50, with the caller's
 * levels on each (one batched check) and whether they may create top-level folders at all.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request, context);
  const params = new URL(request.url).searchParams;
  const pages = Math.min(Math.max(Number(params.get("pages")) || 1, 1), 40);
  // Each library's share of the listing read where it lives (decision 051).
  const reads = rootsWhereTheyLive({ rc: context.rc, actor });
  const root = await listAvailableRoot(context.rc, actor, { skip: 0, take: pages * GROUP_PAGE_SIZE }, reads);
  // `?created=`: a folder just made here that sorts past the pages shown is listed first, so it never seems missing.
  const created = params.get("created");
  if (created && /^[0-9a-f]{32}$/.test(created) && !root.complete && !root.groups.some((g) => g.group_id === created)) {
    const made = await getGroup(context.rc, actor, created).catch(() => null);
    if (made?.parent === ROOT_GROUP_ID && !made.deleted_at) root.groups.unshift({
        group_id: made.group_id,
        group_name: made.group_name,
        group_owner: made.group_owner,
        owner_name: made.owner_name,
        ctime: made.ctime,
        mtime: made.mtime,
        // only ever just made: `created` is set by the dialog that made it
        members: 0,
      });
  }
  // Files shared with the user whose folders they cannot see come after the folders (GET /members of the root).
  const files = root.complete
    ? (await listMembers(context.rc, actor, ROOT_GROUP_ID, { type: "asset", take: pages * GROUP_PAGE_SIZE }, reads.top)).items.flatMap((m) =>
        m.el_type === "asset" ? [{ asset_id: m.el_id, name: m.el_info.name, mimetype: m.el_info.mimetype, owner_name: m.el_info.owner_name, mtime: m.el_info.mtime }] : [],
      )
    : [];
  const [levels, abilities] = await Promise.all([
    levelsOfEach(
      context.rc,
      actor,
      root.groups.map((g) => g.group_id),
    ),
    userAbilities(context.rc, actor),
  ]);
  return { root, files, pages, levels, mayCreate: abilities.abilities.createGroups };
}

type TopGroup = { group_id: string; group_name: string };
type Dialog =
  | { kind: "create" }
  | { kind: "rename" | "move" | "delete" | "access" | "share" | "disk"; group: TopGroup };

/**
 * Why `action` is refused on a top-level folder. Moving one out of the virtual root needs delete on the folder itself
 * (decision 007), so its own levels decide every action here.
 */
function refusalOn(levels: Record<string, string[]>, id: string, action: Action): string | null {
  const own = levels[id] ?? [];
  if (action === "move") return canDo(own, "move") ? denial(own, "relist", "group") : ru.rights.moveTopDenied;
  return denial(own, action, "group");
}

export default function MamRoute() {
  const { root, files, pages, levels, mayCreate } = useLoaderData<typeof loader>();
  const diskHelperUrl = useDiskHelperUrl();
  const desktop = useIsDesktop();
  const { revalidate } = useRevalidator();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [menu, setMenu] = useState<MenuAt | null>(null);
  const why = (g: TopGroup, action: Action) => refusalOn(levels, g.group_id, action);

  const openMenu = (g: TopGroup, x: number, y: number) =>
    setMenu({
      x,
      y,
      label: ru.rights.menu(g.group_name),
      items: menuItems(
        {
          open: () => navigate(`/mam/${g.group_id}`),
          rename: () => setDialog({ kind: "rename", group: g }),
          move: () => setDialog({ kind: "move", group: g }),
          share: () => setDialog({ kind: "share", group: g }),
          access: () => setDialog({ kind: "access", group: g }),
          openOnDisk: desktop ? () => setDialog({ kind: "disk", group: g }) : undefined,
          delete: () => setDialog({ kind: "delete", group: g }),
        },
        (action) => why(g, action),
      ),
    });

  return (
    <>
      <PageHeader
        title={root.group_name}
        subtitle={files.length > 0 ? `${ru.mam.groupsCount(root.groups.length)} · ${ru.mam.filesCount(files.length)}` : ru.mam.groupsCount(root.groups.length)}
        actions={
          <GuardedButton className="btn btn-primary" reason={mayCreate ? null : ru.rights.rootCreateDenied} onClick={() => setDialog({ kind: "create" })}>
            <Icon name="plus" size={16} />
            {ru.library.newFolder}
          </GuardedButton>
        }
      />
      {root.groups.length === 0 && files.length === 0 ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="folder" size={26} />
          </span>
          <div className="empty-title">{ru.mam.empty}</div>
          <div className="unavailable-hint">{ru.mam.emptyHint}</div>
          <div className="unavailable-actions">
            <GuardedButton className="btn btn-primary" reason={mayCreate ? null : ru.rights.rootCreateDenied} onClick={() => setDialog({ kind: "create" })}>
              <Icon name="plus" size={16} />
              {ru.mam.createFirst}
            </GuardedButton>
          </div>
        </section>
      ) : (
        <section className="panel">
          <table className="table members-table root-table">
            <thead>
              <tr>
                <th>{ru.mam.columns.name}</th>
                <th>{ru.mam.columns.owner}</th>
                <th className="num">{ru.mam.columns.members}</th>
                <th>{ru.mam.columns.modified}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {root.groups.map((g) => (
                <tr
                  key={g.group_id}
                  data-member={g.group_id}
                  onContextMenu={(e) => {
                    e.preventDefault();
                    openMenu(g, e.clientX, e.clientY);
                  }}
                  {...longPress((x, y) => openMenu(g, x, y))}
                >
                  <td>
                    <span className="name-cell">
                      <Icon name="folder" className="folder-icon" />
                      <Link to={`/mam/${g.group_id}`}>{g.group_name}</Link>
                    </span>
                  </td>
                  <td>{g.owner_name ?? ru.common.dash}</td>
                  <td className="num">{g.members}</td>
                  <td><LocalTime iso={g.mtime} /></td>
                  <td>
                    <span className="row-actions">
                      <GuardedButton
                        className="icon-btn"
                        reason={why(g, "rename")}
                        title={ru.library.rename}
                        aria-label={`${ru.library.rename}: ${g.group_name}`}
                        onClick={() => setDialog({ kind: "rename", group: g })}
                      >
                        <Icon name="edit" size={16} />
                      </GuardedButton>
                      <GuardedButton
                        className="icon-btn"
                        reason={why(g, "move")}
                        title={ru.library.move}
                        aria-label={`${ru.library.move}: ${g.group_name}`}
                        onClick={() => setDialog({ kind: "move", group: g })}
                      >
                        <Icon name="move" size={16} />
                      </GuardedButton>
                      {canDo(levels[g.group_id], "access") && (
                        <button
                          type="button"
                          className="icon-btn"
                          title={ru.admin.accessEditor.button}
                          aria-label={`${ru.admin.accessEditor.button}: ${g.group_name}`}
                          onClick={() => setDialog({ kind: "access", group: g })}
                        >
                          <Icon name="admin" size={16} />
                        </button>
                      )}
                      <GuardedButton
                        className="icon-btn"
                        reason={why(g, "delete")}
                        title={ru.library.delete}
                        aria-label={`${ru.library.delete}: ${g.group_name}`}
                        onClick={() => setDialog({ kind: "delete", group: g })}
                      >
                        <Icon name="trash" size={16} />
                      </GuardedButton>
                      <button
                        type="button"
                        className="icon-btn"
                        title={ru.rights.menu(g.group_name)}
                        aria-label={ru.rights.menu(g.group_name)}
                        aria-haspopup="menu"
                        onClick={(e) => {
                          const box = e.currentTarget.getBoundingClientRect();
                          openMenu(g, box.left, box.bottom + 4);
                        }}
                      >
                        <Icon name="more" size={16} />
                      </button>
                    </span>
                  </td>
                </tr>
              ))}
              {files.map((f) => (
                <tr key={f.asset_id} data-member={f.asset_id} data-testid="root-file">
                  <td>
                    <span className="name-cell">
                      <Icon name={mediaKind(f.mimetype)} />
                      <Link to={`/asset/${f.asset_id}`}>{f.name}</Link>
                    </span>
                  </td>
                  <td>{f.owner_name ?? ru.common.dash}</td>
                  <td className="num">{ru.common.dash}</td>
                  <td><LocalTime iso={f.mtime} /></td>
                  <td />
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {!root.complete && (
        <div style={{ marginTop: 16, textAlign: "center" }}>
          <Link className="btn" to={`?pages=${pages + 1}`} preventScrollReset>
            {ru.mam.loadMore}
          </Link>
        </div>
      )}

      {menu && <ContextMenu menu={menu} onClose={() => setMenu(null)} />}
      {dialog?.kind === "create" && (
        <NameDialog
          title={ru.library.newFolder}
          label={ru.library.folderName}
          submit={ru.library.create}
          onSubmit={(name) =>
            // The root lists its folders a page at a time by name: with more pages than shown, the new folder may
            // sort past them, so the loader is asked to list it first.
            createGroup(ROOT_GROUP_ID, name).then(({ group_id }) =>
              root.complete ? revalidate() : navigate(`?pages=${pages}&created=${group_id}`, { preventScrollReset: true }),
            )
          }
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "rename" && (
        <NameDialog
          title={ru.library.rename}
          label={ru.library.newName}
          initial={dialog.group.group_name}
          submit={ru.common.save}
          onSubmit={(name) => renameGroup(dialog.group.group_id, name).then(revalidate)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "move" && (
        <MoveDialog
          title={ru.library.moveTitle(1)}
          current={ROOT_GROUP_ID}
          moving={[dialog.group.group_id]}
          onMove={(target) => moveMembers(ROOT_GROUP_ID, target, [dialog.group.group_id]).then(revalidate)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={ru.library.deleteTitle(1)}
          text={ru.library.deleteText}
          confirm={ru.library.delete}
          onConfirm={() => trashGroup(dialog.group.group_id).then(revalidate)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "access" && (
        <AccessModal entityId={dialog.group.group_id} name={dialog.group.group_name} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "share" && (
        <ShareDialog entityId={dialog.group.group_id} name={dialog.group.group_name} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "disk" && (
        <DiskHelperDialog helperUrl={diskHelperUrl} groupId={dialog.group.group_id} folderName={dialog.group.group_name} onClose={() => setDialog(null)} />
      )}
    </>
  );
}
