import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { formatDateTime } from "../../lib/format";
import { playLink } from "../../lib/library-api";
import { formatBytes } from "../../lib/media-kind";
import { Modal } from "../modal";
import type { VersionGroup } from "./version-list";

/** One side of the comparison: the version's main variant as an image, with its number, date and size. */
function Side({ group, name }: { group: VersionGroup; name: string }) {
  const main = group.rows[0];
  const [link, setLink] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    playLink(main.variant_id).then(
      ({ link }) => alive && setLink(link),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [main.variant_id]);
  return (
    <figure className="compare-side" data-version={group.version}>
      <div className="compare-frame">{link ? <img src={link} alt={`${name} — ${ru.library.versionN(group.version)}`} /> : <span className="muted">{ru.common.loading}</span>}</div>
      <figcaption>
        <strong>{ru.library.versionN(group.version)}</strong>
        <span className="muted">
          {formatDateTime(group.ctime)} · {formatBytes(main.content_size)}
        </span>
        {group.desc && <span className="compare-desc">{group.desc}</span>}
      </figcaption>
    </figure>
  );
}

/** Two image versions side by side (older on the left), each fitted to its half. */
export function VersionCompare({ name, pair, onClose }: { name: string; pair: [VersionGroup, VersionGroup]; onClose: () => void }) {
  const [older, newer] = pair[0].version < pair[1].version ? pair : [pair[1], pair[0]];
  return (
    <Modal title={ru.fileVersions.compareTitle(older.version, newer.version)} onClose={onClose} wide>
      <div className="compare-split" data-testid="version-compare">
        <Side group={older} name={name} />
        <Side group={newer} name={name} />
      </div>
    </Modal>
  );
}
