import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { ApiError } from "../../lib/api-error";
import { Icon } from "../icons";
import { ConfirmDialog, Modal, NameDialog } from "../modal";
import * as api from "./api";

const t = ru.metadataAdmin;

type Dialog =
  | { kind: "tree" }
  | { kind: "child" | "rename" | "move" | "delete"; node: api.TaxonNode }
  | { kind: "force"; node: api.TaxonNode; message: string }
  | null;

/** Every taxon of the tree except `skip` and its descendants, with its depth (the targets of a move). */
function flatten(node: api.TaxonNode, skip: string, depth = 0): { node: api.TaxonNode; depth: number }[] {
  if (node.taxon_id === skip) return [];
  return [{ node, depth }, ...node.children.flatMap((c) => flatten(c, skip, depth + 1))];
}

function MoveDialog({
  root,
  node,
  onMove,
  onClose,
}: {
  root: api.TaxonNode;
  node: api.TaxonNode;
  onMove: (parent: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const targets = flatten(root, node.taxon_id);
  const [parent, setParent] = useState(targets[0]?.node.taxon_id ?? "");
  return (
    <Modal
      title={`${t.move}: ${node.name}`}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {t.cancel}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void onMove(parent).then(onClose, () => undefined)}>
            {t.move}
          </button>
        </>
      }
    >
      <div className="field">
        <label htmlFor="taxon-parent">{t.moveTo}</label>
        <select id="taxon-parent" className="input select" value={parent} onChange={(e) => setParent(e.target.value)}>
          {targets.map(({ node: n, depth }) => (
            <option key={n.taxon_id} value={n.taxon_id}>
              {`${"  ".repeat(depth)}${depth ? "└ " : ""}${n.name}`}
            </option>
          ))}
        </select>
      </div>
    </Modal>
  );
}

function TaxonRow({
  node,
  depth,
  isRoot,
  onAction,
}: {
  node: api.TaxonNode;
  depth: number;
  isRoot: boolean;
  onAction: (d: Dialog) => void;
}) {
  return (
    <li>
      <div className="md-taxon" style={{ paddingLeft: 12 + depth * 20 }} data-taxon={node.name}>
        <span className={`md-taxon-dot${node.children.length ? " has-children" : ""}`} aria-hidden="true" />
        <span className="md-taxon-name">{node.name}</span>
        {node.members > 0 && <span className="chip md-count">{t.membersCount(node.members)}</span>}
        <span className="md-spacer" />
        <span className="row-actions">
          <button
            type="button"
            className="icon-btn"
            title={t.addChild}
            aria-label={`${t.addChild}: ${node.name}`}
            onClick={() => onAction({ kind: "child", node })}
          >
            <Icon name="plus" size={15} />
          </button>
          <button
            type="button"
            className="icon-btn"
            title={t.rename}
            aria-label={`${t.rename}: ${node.name}`}
            onClick={() => onAction({ kind: "rename", node })}
          >
            <Icon name="edit" size={15} />
          </button>
          {!isRoot && (
            <button
              type="button"
              className="icon-btn"
              title={t.move}
              aria-label={`${t.move}: ${node.name}`}
              onClick={() => onAction({ kind: "move", node })}
            >
              <Icon name="move" size={15} />
            </button>
          )}
          <button
            type="button"
            className="icon-btn"
            title={t.delete}
            aria-label={`${t.delete}: ${node.name}`}
            onClick={() => onAction({ kind: "delete", node })}
          >
            <Icon name="trash" size={15} />
          </button>
        </span>
      </div>
      {node.children.length > 0 && (
        <ul className="md-tree">
          {node.children.map((c) => (
            <TaxonRow key={c.taxon_id} node={c} depth={depth + 1} isRoot={false} onAction={onAction} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** Taxonomies: the list of trees and the chosen one as an editable tree (add, rename, move, delete with force). */
export function TaxonomySection() {
  const [trees, setTrees] = useState<api.TreeInfo[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [root, setRoot] = useState<api.TaxonNode | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);

  const loadTrees = useCallback(() => api.treeList().then(setTrees, () => setTrees([])), []);
  const loadTree = useCallback(() => {
    if (selected) api.tree(selected).then(setRoot, () => setRoot(null));
    else setRoot(null);
  }, [selected]);
  useEffect(() => void loadTrees(), [loadTrees]);
  useEffect(loadTree, [loadTree]);
  const reload = () => {
    void loadTrees();
    loadTree();
  };

  async function remove(node: api.TaxonNode) {
    try {
      await api.deleteTaxon(selected!, node.taxon_id, false, false);
      if (node.taxon_id === selected) setSelected(null);
      reload();
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) setDialog({ kind: "force", node, message: error.message });
      else throw error;
    }
  }

  return (
    <section>
      <div className="md-section-head">
        <p className="muted">{t.taxonomiesHint}</p>
        <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: "tree" })}>
          <Icon name="plus" size={16} />
          {t.newTaxonomy}
        </button>
      </div>
      <div className="md-split">
        <nav className="panel md-side" aria-label={t.sections.taxonomies}>
          {trees?.length === 0 && <p className="muted pad">{t.noTaxonomies}</p>}
          {trees?.map((tree) => (
            <button
              key={tree.tree_id}
              type="button"
              className={`tree-row${tree.tree_id === selected ? " active" : ""}`}
              onClick={() => setSelected(tree.tree_id)}
            >
              <span className="md-taxon-dot has-children" aria-hidden="true" />
              {tree.name}
            </button>
          ))}
        </nav>
        <div className="panel md-main">
          {root ? (
            <ul className="md-tree md-tree-root">
              <TaxonRow node={root} depth={0} isRoot onAction={setDialog} />
            </ul>
          ) : (
            <p className="muted pad">{t.pickTaxonomy}</p>
          )}
        </div>
      </div>

      {dialog?.kind === "tree" && (
        <NameDialog
          title={t.newTaxonomy}
          label={t.taxonomyName}
          submit={t.create}
          onSubmit={(name) =>
            api.createTaxon(api.FOREST_ID, name.replaceAll("/", "")).then(({ tree_id }) => {
              setSelected(tree_id);
              void loadTrees();
            })
          }
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "child" && (
        <NameDialog
          title={`${t.addChild}: ${dialog.node.name}`}
          label={t.childName}
          submit={t.create}
          onSubmit={(name) => {
            const path = [...pathTo(root!, dialog.node.taxon_id).slice(1), name.replaceAll("/", "")].join("/");
            return api.createTaxon(selected!, path).then(reload);
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "rename" && (
        <NameDialog
          title={t.rename}
          label={t.name}
          initial={dialog.node.name}
          submit={t.save}
          onSubmit={(name) => api.changeTaxon(selected!, dialog.node.taxon_id, { name }).then(reload)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "move" && root && (
        <MoveDialog
          root={root}
          node={dialog.node}
          onMove={(parent_id) => api.changeTaxon(selected!, dialog.node.taxon_id, { parent_id }).then(reload)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={t.deleteTaxonTitle}
          text={`${dialog.node.name}. ${t.deleteTaxonText}`}
          confirm={t.delete}
          onConfirm={() => remove(dialog.node)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "force" && (
        <ConfirmDialog
          title={t.forceTaxonTitle}
          text={dialog.message}
          confirm={t.forceDeleteConfirm}
          onConfirm={() =>
            api.deleteTaxon(selected!, dialog.node.taxon_id, true).then(() => {
              if (dialog.node.taxon_id === selected) setSelected(null);
              reload();
            })
          }
          onClose={() => setDialog(null)}
        />
      )}
    </section>
  );
}

/** Names from the root down to the taxon `id` (the path `create` takes). */
function pathTo(node: api.TaxonNode, id: string): string[] {
  if (node.taxon_id === id) return [node.name];
  for (const child of node.children) {
    const found = pathTo(child, id);
    if (found.length) return [node.name, ...found];
  }
  return [];
}
