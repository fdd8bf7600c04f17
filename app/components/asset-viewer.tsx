import { Link, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { canDo, denial } from "../lib/abilities";
import { AssetHistory } from "./asset-history";
import { SCREEN_VARIANT_TYPES } from "../../workers/services/library/pure";
import { LocalTime } from "./local-time";
import { opensInEditor } from "../lib/editor-kind";
import * as lib from "../lib/library-api";
import { loadFailure, type LoadFailure } from "../lib/load-failure";
import { formatBytes, mediaKind } from "../lib/media-kind";
import { mimeLabel } from "../lib/mime-label";
import { similarHref } from "../lib/similar-search";
import { useFolderNeighbours } from "../lib/use-folder-neighbours";
import { CollectionViewerKeys } from "./collections/collection-viewer-keys";
import { useSwipe } from "../lib/use-swipe";
import { useUploadEvents } from "../lib/upload-engine/index";
import { AccessButton } from "./access/access-dialog";
import { FavouriteStar } from "./favourite-star";
import { ShareButton, useLevels } from "./share-dialog";
import { SellButton } from "./shop/sell-dialog";
import { GuardedButton } from "./guarded-button";
import { ViewerKeys } from "./viewer-keys";
import { Icon } from "./icons";
import { MediaPlayer } from "./media-player";
import { Waveform } from "./waveform";
import { healable, healPreview, untilSettled, type HealOutcome } from "../lib/heal-preview";
import { HealMakers } from "./heal-makers";
import { classesByIds } from "./metadata/api";
import { AssetMetadata } from "./metadata/asset-metadata";
import { ConfirmDialog, NameDialog } from "./modal";
import { MoveDialog } from "./move-dialog";
import { OverflowToolbar } from "./overflow-menu";
import { TagDialog } from "./tag-dialog";
import { TechData } from "./tech-data";
import { UnavailablePage } from "./unavailable-page";
import { VersionList } from "./versions/version-list";
import { AddToCollectionButton } from "./collections/add-to-collection-dialog";
import { CommentsAside } from "./comments/comments-aside";
import { ReviewBadge } from "./reviews/review-badge";
import { ReviewPanel } from "./reviews/review-panel";

type Dialog = "rename" | "copy" | "tags" | "delete" | null;

/** The latest version's screen rendition (a proxy), which `read` may play; null when the file has only originals. */
function screenVariantOf(asset: lib.AssetInfo): string | null {
  for (const type of SCREEN_VARIANT_TYPES) {
    const found = asset.asset_latest_version_variants.find((v) => v.variant_type === type);
    if (found) return found.variant_id;
  }
  return null;
}

/** The latest version's playable proxy made for a video the browser could not play (decision 029), if stored. */
function videoProxyOf(asset: lib.AssetInfo): { id: string; mime: string } | null {
  const found = asset.asset_latest_version_variants.find((v) => v.variant_type === "proxy_lowres" && v.mime_type.startsWith("video/"));
  return found ? { id: found.variant_id, mime: found.mime_type } : null;
}

function InfoRow({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/**
 * MamViewerAsset / Asset: the player, the info panel of SPEC §3, versions with downloads, tags and actions. Actions the
 * caller's `levels` on the file do not allow stay visible, disabled, with the reason (fetched here when not given).
 */
export function AssetViewer({
  assetId,
  groupId,
  collectionId,
  levels: known,
}: {
  assetId: string;
  groupId?: string;
  /** opened from a collection: steps through its items, Esc and «back» lead to it */
  collectionId?: string;
  levels?: string[] | null;
}) {
  const navigate = useNavigate();
  const [asset, setAsset] = useState<lib.AssetInfo | null>(null);
  const [versions, setVersions] = useState<lib.VersionRow[]>([]);
  const [groups, setGroups] = useState<{ group_id: string; group_name: string }[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [media, setMedia] = useState<HTMLMediaElement | null>(null);
  const [className, setClassName] = useState<string | null>(null);
  const fetched = useLevels(known === undefined ? assetId : null);
  const levels = known === undefined ? fetched : known;
  const why = (action: Parameters<typeof denial>[1]) => denial(levels, action, "asset");

  // Why the file could not be opened; only answered while nothing is shown (a later refresh that fails toasts).
  const [failure, setFailure] = useState<LoadFailure | null>(null);
  const shown = useRef(false);

  const load = useCallback(() => {
    setFailure(null);
    lib.getAsset(assetId, { toast: shown.current }).then(
      (info) => {
        shown.current = true;
        setAsset(info);
        // Asked once the file is known to be readable, so a missing file answers with one page, not three toasts.
        lib.assetVersions(assetId).then(setVersions, () => undefined);
        lib.assetGroups(assetId).then(setGroups, () => undefined);
      },
      (error) => !shown.current && setFailure(loadFailure(error)),
    );
  }, [assetId]);
  useEffect(load, [load]);
  // On a touch screen a swipe over the player steps to the next or previous file of the folder.
  const neighbours = useFolderNeighbours(groupId, assetId, asset !== null);
  const swipeArea = useSwipe({
    onLeft: () => neighbours.next && navigate(`/mam/${groupId}/asset/${neighbours.next}`),
    onRight: () => neighbours.previous && navigate(`/mam/${groupId}/asset/${neighbours.previous}`),
  });
  // The tab's title is the file's own name (the route's meta only knows the screen).
  useEffect(() => {
    if (asset?.name) document.title = `${asset.name} — ${ru.app.name}`;
  }, [asset?.name]);
  // Heal on view (decision 029): a file without a preview gets one from this browser when it can decode it.
  const [heal, setHeal] = useState<HealOutcome | "running" | null>(null);
  const mayDownload = canDo(levels, "download");
  useEffect(() => {
    if (!asset?.var || !asset.ver || !healable(asset.mimetype) || !mayDownload) return;
    let alive = true;
    const target = { assetId: asset.asset_id, version: asset.ver, variantId: asset.var, mime: asset.mimetype, bytes: asset.var_size };
    setHeal("running");
    // A file changed a moment ago is still being pictured by its uploader's page and its processing.
    const timer = setTimeout(() => void healPreview(target).then((outcome) => alive && setHeal(outcome)), untilSettled(asset.mtime));
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [asset?.asset_id, asset?.ver, asset?.var, asset?.mimetype, asset?.var_size, asset?.mtime, mayDownload]);
  // A new version of this file finished uploading (here or in another tab's queue): show it.
  useUploadEvents((event) => event.type === "uploadCompleted" && event.assetId === assetId && load());
  useEffect(() => {
    setClassName(null);
    if (asset?.class) classesByIds([asset.class]).then(([c]) => setClassName(c?.name ?? null), () => undefined);
  }, [asset?.class]);

  if (failure === "unavailable") return <UnavailablePage title={ru.screens.assetUnavailable} hint={ru.screens.assetUnavailableHint} />;
  if (failure) return <UnavailablePage title={ru.screens.loadFailed} hint={ru.screens.crashedHint} icon="other" onRetry={load} />;
  if (!asset) return <div className="muted">{ru.common.loading}</div>;
  const back = groupId ? `/mam/${groupId}` : collectionId ? `/collections/${collectionId}` : "/mam";

  return (
    <div className="viewer">
      {/* One row at desktop widths (issue 28): the actions that do not fit go into «Ещё», the title is cut. */}
      <div className="page-header viewer-head">
        <div>
          <div className="breadcrumbs">
            <Link to={back}>← {!groupId && collectionId ? ru.collectionLink.backToCollection : ru.library.backToFolder}</Link>
            {groupId && <ViewerKeys groupId={groupId} assetId={assetId} back={back} />}
            {!groupId && collectionId && <CollectionViewerKeys collectionId={collectionId} assetId={assetId} back={back} />}
          </div>
          <div className="fav-title-row">
            <h1 className="page-title" title={asset.name}>
              {asset.name}
            </h1>
            <FavouriteStar id={asset.asset_id} type="asset" name={asset.name} />
            <ReviewBadge status={asset.review_status} className="viewer-review-badge" />
          </div>
        </div>
        <OverflowToolbar className="toolbar" label={ru.library.fileActions} everyWidth>
          {asset.var && (
            <GuardedButton
              className="btn btn-primary"
              data-overflow="never"
              reason={why("download")}
              onClick={() => void lib.downloadVariant(asset.asset_id, asset.var!).catch(() => undefined)}
            >
              <Icon name="download" size={16} />
              {ru.library.download}
            </GuardedButton>
          )}
          {opensInEditor(asset.name, asset.mimetype) &&
            (canDo(levels, "download") ? (
              <Link className="btn" to={`/editor/${asset.asset_id}`}>
                <Icon name="text" size={16} />
                {ru.editor.openInEditor}
              </Link>
            ) : (
              // The office editor opens the original (the server mints its token only with download).
              <GuardedButton reason={levels ? ru.rights.editorDenied : ru.rights.checking} onClick={() => undefined}>
                <Icon name="text" size={16} />
                {ru.editor.openInEditor}
              </GuardedButton>
            ))}
          <ShareButton entityId={asset.asset_id} name={asset.name} levels={levels} className="btn viewer-secondary" />
          <AddToCollectionButton assetIds={[asset.asset_id]} className="btn viewer-secondary" />
          <GuardedButton className="btn viewer-secondary" title={ru.library.rename} reason={why("rename")} onClick={() => setDialog("rename")}>
            <Icon name="edit" size={16} />
            {ru.library.rename}
          </GuardedButton>
          <GuardedButton className="btn viewer-secondary" title={ru.library.copy} reason={why("copy")} onClick={() => setDialog("copy")}>
            <Icon name="copy" size={16} />
            {ru.library.copy}
          </GuardedButton>
          <Link className="btn viewer-secondary" title={ru.similar.find} to={similarHref({ id: asset.asset_id, name: asset.name })}>
            <Icon name="search" size={16} />
            {ru.similar.find}
          </Link>
          <AccessButton entityId={asset.asset_id} name={asset.name} className="btn viewer-secondary" />
          <SellButton entityId={asset.asset_id} name={asset.name} className="btn viewer-secondary" />
          <GuardedButton className="btn btn-danger-outline viewer-secondary" title={ru.library.delete} reason={why("delete")} onClick={() => setDialog("delete")}>
            <Icon name="trash" size={16} />
            {ru.library.delete}
          </GuardedButton>
        </OverflowToolbar>
      </div>
      <div className="viewer-grid">
        <div>
          <div className="viewer-stage" ref={swipeArea} data-heal={heal ?? undefined} data-previous={neighbours.previous ?? undefined} data-next={neighbours.next ?? undefined}>
            {/* Until the levels are known the player would ask for the original, which a reader is refused. */}
            {levels ? (
              <MediaPlayer
                variantId={asset.var}
                mime={asset.mimetype}
                name={asset.name}
                asset={{ id: asset.asset_id, version: asset.ver }}
                onMedia={setMedia}
                videoProxy={videoProxyOf(asset)}
                screen={canDo(levels, "download") ? null : { assetId: asset.asset_id, variantId: screenVariantOf(asset) }}
              />
            ) : (
              <div className="player player-empty" aria-busy="true" />
            )}
          </div>
          {asset.ver > 0 && <HealMakers assetId={asset.asset_id} version={asset.ver} />}
          {mediaKind(asset.mimetype) === "audio" && asset.var && asset.ver > 0 && (
            <Waveform
              asset={{ id: asset.asset_id, version: asset.ver, variantId: asset.var, mime: asset.mimetype, bytes: asset.var_size }}
              media={media}
              mayFetch={mayDownload}
            />
          )}
          <AssetMetadata editRefused={why("fields")} assetId={asset.asset_id} classId={asset.class} media={media} onClassChanged={load} />
          <VersionList asset={asset} rows={versions} groupId={groupId} onChanged={load} />
        </div>
        <aside className="panel info-panel">
          <CommentsAside assetId={asset.asset_id} mime={asset.mimetype} media={media}>
          <h2>{ru.library.info}</h2>
          <dl className="info-list">
            <InfoRow label={ru.library.fields.name}>{asset.name}</InfoRow>
            <InfoRow label={ru.library.fields.owner}>{asset.owner_name ?? ru.common.dash}</InfoRow>
            <InfoRow label={ru.library.fields.creator}>{asset.creator_name ?? ru.common.dash}</InfoRow>
            <InfoRow label={ru.library.fields.ctime}><LocalTime iso={asset.ctime} /></InfoRow>
            <InfoRow label={ru.library.fields.mtime}><LocalTime iso={asset.mtime} /></InfoRow>
            <InfoRow label={ru.library.fields.atime}><LocalTime iso={asset.atime} /></InfoRow>
            <InfoRow label={ru.library.fields.mimetype}>
              {mimeLabel(asset.mimetype)} <span className="muted">({asset.mimetype})</span>
            </InfoRow>
            <InfoRow label={ru.library.fields.class}>{className ?? asset.class ?? ru.common.dash}</InfoRow>
            <InfoRow label={ru.library.fields.ver}>{asset.ver || ru.common.dash}</InfoRow>
            <InfoRow label={ru.library.fields.var}>
              <code>{asset.var ?? ru.common.dash}</code>
            </InfoRow>
            <InfoRow label={ru.library.fields.varSize}>{formatBytes(asset.var_size)}</InfoRow>
            <InfoRow label={ru.library.fields.varHash}>
              {asset.var_hash.length
                ? asset.var_hash.map((h) => <code key={h.alg} className="hash">{`${h.alg}: ${h.value}`}</code>)
                : ru.common.dash}
            </InfoRow>
          </dl>
          <ReviewPanel assetId={asset.asset_id} version={asset.ver} levels={levels} onChanged={load} />
          <TechData assetId={asset.asset_id} variantId={asset.var} />
          <h3>{ru.library.tags}</h3>
          <div className="tag-cloud">
            {asset.tags.map((t) => (
              <span key={t.tag_id} className="chip active">
                {t.tag_name}
              </span>
            ))}
            <GuardedButton className="chip chip-add" reason={why("tags")} onClick={() => setDialog("tags")}>
              {ru.library.editTags}
            </GuardedButton>
          </div>
          <h3>{ru.library.memberOf}</h3>
          <ul className="plain-list">
            {groups.map((g) => (
              <li key={g.group_id}>
                <Icon name="folder" size={14} className="folder-icon" /> <Link to={`/mam/${g.group_id}`}>{g.group_name}</Link>
              </li>
            ))}
          </ul>
          <AssetHistory assetId={asset.asset_id} levels={levels} />
          </CommentsAside>
        </aside>
      </div>

      {dialog === "rename" && (
        <NameDialog
          title={ru.library.rename}
          label={ru.library.newName}
          initial={asset.name}
          submit={ru.common.save}
          onSubmit={(name) => lib.renameAsset(asset.asset_id, name).then(load)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === "copy" && (
        <MoveDialog
          title={ru.library.copyTitle}
          submit={ru.library.copyHere}
          onMove={(target) => lib.copyAsset(asset.asset_id, target).then(({ asset_id }) => navigate(`/mam/${target}/asset/${asset_id}`))}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === "tags" && (
        <TagDialog entities={[{ id: asset.asset_id, type: "asset" }]} current={asset.tags} onDone={load} onClose={() => setDialog(null)} />
      )}
      {dialog === "delete" && (
        <ConfirmDialog
          title={ru.library.deleteNamed(asset.name)}
          text={ru.library.deleteText}
          confirm={ru.library.delete}
          onConfirm={() => lib.trashAsset(asset.asset_id).then(() => navigate(back))}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}
