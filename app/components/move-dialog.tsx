import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { groupTree, type TreeNode } from "../lib/library-api";
import { denial } from "../lib/abilities";
import { ROOT_GROUP_ID } from "../lib/root-group";
import { levelsOfMany } from "../lib/use-member-levels";
import { Icon } from "./icons";
import { Modal } from "./modal";

interface RowsProps {
  node: TreeNode;
  depth: number;
  chosen: string | null;
  /** folders being moved: neither they nor anything below them can be the target */
  moving: Set<string>;
  /** the folder the items are in now: not a target, but its sub-folders are */
  current?: string;
  onChoose: (id: string) => void;
  /** why a folder cannot take the items (no create right on it); null: it can */
  refused: (id: string) => string | null;
}

function TreeRows({ node, depth, chosen, moving, current, onChoose, refused }: RowsProps) {
  const blocked = moving.has(node.element_id);
  const reason = refused(node.element_id);
  return (
    <>
      {node.element_id !== ROOT_GROUP_ID && (
        <button
          type="button"
          className={`tree-row${chosen === node.element_id ? " active" : ""}`}
          style={{ paddingLeft: 12 + depth * 18 }}
          disabled={blocked || node.element_id === current || reason != null}
          title={reason ?? undefined}
          onClick={() => onChoose(node.element_id)}
        >
          <Icon name="folder" className="folder-icon" size={16} />
          {node.group_name}
        </button>
      )}
      {!blocked &&
        node.subGroups.map((child) => (
          <TreeRows
            key={child.element_id}
            node={child}
            depth={node.element_id === ROOT_GROUP_ID ? depth : depth + 1}
            chosen={chosen}
            moving={moving}
            current={current}
            onChoose={onChoose}
            refused={refused}
          />
        ))}
    </>
  );
}

/** Folders checked for the create right at most; further ones stay choosable and the server has the last word. */
const MAX_CHECKED = 600;

function idsOf(node: TreeNode): string[] {
  const own = node.element_id === ROOT_GROUP_ID ? [] : [node.element_id];
  return [...own, ...node.subGroups.flatMap(idsOf)];
}

/**
 * Picks a target folder from the tree the user can see. Folders being moved (and so their subtrees) cannot be
 * chosen: a folder cannot go inside itself; neither can the folder the items are already in.
 */
export function MoveDialog({
  title,
  submit = ru.library.moveHere,
  moving = [],
  current,
  onMove,
  onClose,
}: {
  title: string;
  /** the confirm button: «Переместить сюда» unless the dialog copies */
  submit?: string;
  moving?: string[];
  current?: string;
  onMove: (target: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const [tree, setTree] = useState<TreeNode | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [levels, setLevels] = useState<ReadonlyMap<string, string[]>>(new Map());
  useEffect(() => {
    groupTree(ROOT_GROUP_ID)
      .then(setTree)
      .catch(() => onClose());
  }, [onClose]);
  // Folders the caller may not create in are shown but cannot be chosen (one batched check for the tree).
  useEffect(() => {
    if (!tree) return;
    const ids = idsOf(tree).slice(0, MAX_CHECKED);
    let alive = true;
    levelsOfMany(ids).then(
      (answer) => alive && setLevels(answer),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [tree]);
  const refused = (id: string) => (levels.has(id) ? denial(levels.get(id), "upload", "group") : null);
  return (
    <Modal
      title={title}
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!chosen}
            onClick={() =>
              chosen &&
              onMove(chosen)
                .then(onClose)
                .catch(() => undefined)
            }
          >
            {submit}
          </button>
        </>
      }
    >
      <div className="tree-picker">
        {tree ? (
          <TreeRows node={tree} depth={0} chosen={chosen} moving={new Set(moving)} current={current} onChoose={setChosen} refused={refused} />
        ) : (
          <div className="muted">{ru.common.loading}</div>
        )}
      </div>
    </Modal>
  );
}
