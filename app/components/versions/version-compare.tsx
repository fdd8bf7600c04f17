import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { LocalTime } from "../local-time";
import { playLink } from "../../lib/library-api";
import { formatBytes } from "../../lib/media-kind";
import { Modal } from "../modal";
import type { VersionGroup } from "./version-list";

/** The viewable link of a version's main variant (null while it is being signed). */
function useMainLink(fileId: string, group: VersionGroup): string | null {
  const main = group.rows[0];
  const [link, setLink] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    playLink(main.variant_id, fileId).then(
      ({ link }) => alive && setLink(link),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [fileId, main.variant_id]);
  return link;
}

function Caption({ group }: { group: VersionGroup }) {
  return (
    <figcaption>
      <strong>{ru.library.versionN(group.version)}</strong>
      <span className="muted">
        <LocalTime iso={group.ctime} /> · {formatBytes(group.rows[0].content_size)}
      </span>
      {group.desc && <span className="compare-desc">{group.desc}</span>}
    </figcaption>
  );
}

/** One side of the side-by-side view: the version's main variant fitted to its half. */
function Side({ group, link, name }: { group: VersionGroup; link: string | null; name: string }) {
  return (
    <figure className="compare-side" data-version={group.version}>
      <div className="compare-frame">
        {link ? <img src={link} alt={`${name} — ${ru.library.versionN(group.version)}`} /> : <span className="muted">{ru.common.loading}</span>}
      </div>
      <Caption group={group} />
    </figure>
  );
}

/**
 * The curtain: both versions in one frame, the newer one over the older, uncovered from the left up to the
 * slider's position — differences show where the edge passes.
 */
function Curtain({ older, newer, links, name }: { older: VersionGroup; newer: VersionGroup; links: [string | null, string | null]; name: string }) {
  const [at, setAt] = useState(50);
  return (
    <div className="compare-curtain">
      <div className="compare-frame compare-stack">
        {links[0] && <img src={links[0]} alt={`${name} — ${ru.library.versionN(older.version)}`} />}
        {links[1] && (
          <img src={links[1]} alt={`${name} — ${ru.library.versionN(newer.version)}`} style={{ clipPath: `inset(0 0 0 ${at}%)` }} />
        )}
        <span className="compare-edge" style={{ left: `${at}%` }} aria-hidden="true" />
      </div>
      <input
        type="range"
        className="compare-range"
        min={0}
        max={100}
        value={at}
        onChange={(e) => setAt(Number(e.target.value))}
        aria-label={ru.fileVersions.curtainPosition}
      />
      <div className="compare-captions">
        <Caption group={older} />
        <Caption group={newer} />
      </div>
    </div>
  );
}

/** Two image versions compared (older first): side by side, or in one frame with a curtain between them. */
export function VersionCompare({
  fileId,
  name,
  pair,
  onClose,
}: {
  fileId: string;
  name: string;
  pair: [VersionGroup, VersionGroup];
  onClose: () => void;
}) {
  const [older, newer] = pair[0].version < pair[1].version ? pair : [pair[1], pair[0]];
  const [mode, setMode] = useState<"side" | "curtain">("side");
  const links: [string | null, string | null] = [useMainLink(fileId, older), useMainLink(fileId, newer)];
  return (
    <Modal title={ru.fileVersions.compareTitle(older.version, newer.version)} onClose={onClose} wide>
      <div className="segmented compare-modes" role="group" aria-label={ru.fileVersions.compareMode}>
        <button type="button" className={`btn btn-sm${mode === "side" ? " active" : ""}`} aria-pressed={mode === "side"} onClick={() => setMode("side")}>
          {ru.fileVersions.sideBySide}
        </button>
        <button
          type="button"
          className={`btn btn-sm${mode === "curtain" ? " active" : ""}`}
          aria-pressed={mode === "curtain"}
          onClick={() => setMode("curtain")}
        >
          {ru.fileVersions.curtain}
        </button>
      </div>
      {mode === "side" ? (
        <div className="compare-split" data-testid="version-compare">
          <Side group={older} link={links[0]} name={name} />
          <Side group={newer} link={links[1]} name={name} />
        </div>
      ) : (
        <Curtain older={older} newer={newer} links={links} name={name} />
      )}
    </Modal>
  );
}
