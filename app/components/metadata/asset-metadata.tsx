import { useCallback, useEffect, useState } from "react";
import * as api from "./api";
import { MetadataPanel } from "./metadata-panel";
import { Timeline } from "./timeline";

/**
 * The viewer's metadata: the timeline of time-ranged values (for video and audio) under the player, then the panel
 * of the asset's class fields. Loads classes, templates and values once and reloads values after each change.
 */
export function AssetMetadata({
  assetId,
  classId,
  media,
  onClassChanged,
  editRefused = null,
}: {
  /** why the caller may not change field values (no `update`): edits stay visible, disabled, with this reason */
  editRefused?: string | null;
  assetId: string;
  classId: string | null;
  /** the player's element when the asset plays (video or audio) */
  media: HTMLMediaElement | null;
  onClassChanged: () => void;
}) {
  const [classes, setClasses] = useState<api.AssetClassInfo[]>([]);
  const [templates, setTemplates] = useState<api.FieldTemplateInfo[]>([]);
  const [values, setValues] = useState<api.FieldValueInfo[] | null>(null);
  const loadValues = useCallback(() => api.valuesFor(assetId).then(setValues, () => setValues([])), [assetId]);
  useEffect(() => {
    api.listClasses().then(setClasses, () => undefined);
    api.listTemplates().then(setTemplates, () => undefined);
    void loadValues();
  }, [loadValues]);
  if (values === null) return null;
  const byId = new Map(templates.map((tpl) => [tpl.field_def_id, tpl]));
  return (
    <>
      {media && (
        <Timeline editRefused={editRefused} assetId={assetId} video={media} templates={templates} values={values.filter((v) => v.pts)} onChanged={loadValues} />
      )}
      <MetadataPanel
        key={`${classId}`}
        editRefused={editRefused}
        assetId={assetId}
        classId={classId}
        classes={classes}
        templates={byId}
        values={values.filter((v) => !v.pts)}
        onSaved={() => {
          void loadValues();
          onClassChanged();
        }}
      />
    </>
  );
}
