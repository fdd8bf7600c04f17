import { useCallback, useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { HEALED_EVENT } from "../lib/heal-events";

interface Person {
  id: string;
  name: string | null;
}

/** `GET /api/asset/heal/{id}/{version}`. */
interface HealState {
  version: number;
  can_accept: boolean;
  made: { kind: string; made_by: Person; accepted_by: Person | null }[];
  pending: { kind: keyof typeof ru.healReview.kinds; made_by: Person; ctime: string; mine: boolean }[];
}

const PICTURES = new Set(["thumb", "medium", "strip"]);
const nameOf = (p: Person) => p.name ?? ru.healReview.unknownUser;

/** «Прокси сделал(а) …» / «Превью сделал(а) …», with who accepted it when that was someone else. */
function madeLine(made: HealState["made"][number]): string {
  const line = made.kind === "proxy" ? ru.healReview.proxyMadeBy(nameOf(made.made_by)) : ru.healReview.previewMadeBy(nameOf(made.made_by));
  return made.accepted_by && made.accepted_by.id !== made.made_by.id ? `${line}, ${ru.healReview.acceptedBy(nameOf(made.accepted_by))}` : line;
}

/**
 * Who made the pictures and the proxy a version shows when a viewer's browser made them (decision 029, «Who sees a
 * heal»), the viewer's own heal that waits for acceptance («Ожидает подтверждения»: only he sees it), and for a
 * user with `update` the heals of others waiting, each maker's with a «Принять» button.
 */
export function HealMakers({ assetId, version }: { assetId: string; version: number }) {
  const [state, setState] = useState<HealState | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const load = useCallback(() => {
    apiRequest<HealState>(`/api/asset/heal/${assetId}/${version}`, { toast: false })
      .then(setState)
      .catch(() => setState(null));
  }, [assetId, version]);
  useEffect(() => {
    load();
    const onHealed = (event: Event) => {
      if ((event as CustomEvent<{ assetId: string }>).detail?.assetId === assetId) load();
    };
    window.addEventListener(HEALED_EVENT, onHealed);
    return () => window.removeEventListener(HEALED_EVENT, onHealed);
  }, [assetId, load]);

  if (!state || (state.made.length === 0 && state.pending.length === 0)) return null;
  const proxy = state.made.find((m) => m.kind === "proxy");
  const picture = state.made.find((m) => PICTURES.has(m.kind));
  const mine = state.pending.filter((p) => p.mine);
  const others = new Map<string, { maker: Person; kinds: HealState["pending"][number]["kind"][] }>();
  for (const p of state.pending) {
    if (p.mine || !state.can_accept) continue;
    const entry = others.get(p.made_by.id) ?? { maker: p.made_by, kinds: [] };
    entry.kinds.push(p.kind);
    others.set(p.made_by.id, entry);
  }
  const accept = async (maker: string, kinds: readonly string[]) => {
    setBusy(true);
    setNote(null);
    try {
      for (const kind of kinds) {
        await apiRequest(`/api/asset/heal/${assetId}/${state.version}/accept`, { method: "POST", body: { kind, maker }, toast: false });
      }
      setNote(ru.healReview.accepted);
    } catch {
      setNote(ru.healReview.acceptFailed);
    } finally {
      setBusy(false);
      load();
    }
  };
  const mineKinds = new Set(mine.map((p) => (p.kind === "proxy" ? "proxy" : "picture")));
  return (
    <div className="heal-makers muted" data-testid="heal-makers">
      {proxy && <p data-testid="heal-made">{madeLine(proxy)}</p>}
      {picture && <p data-testid="heal-made">{madeLine(picture)}</p>}
      {[...mineKinds].map((kind) => (
        <p key={kind} data-testid="heal-pending-mine" title={ru.healReview.pendingMineHint}>
          {kind === "proxy" ? ru.healReview.proxyMadeBy(nameOf(mine[0].made_by)) : ru.healReview.previewMadeBy(nameOf(mine[0].made_by))}
          {" · "}
          <strong>{ru.healReview.pendingMine}</strong>
        </p>
      ))}
      {[...others.values()].map(({ maker, kinds }) => (
        <p key={maker.id} data-testid="heal-pending">
          {ru.healReview.pendingOf([...new Set(kinds.map((k) => ru.healReview.kinds[k]))].join(", "), nameOf(maker))}{" "}
          <button type="button" className="btn btn-small" disabled={busy} data-testid="heal-accept" onClick={() => void accept(maker.id, kinds)}>
            {ru.healReview.accept}
          </button>
        </p>
      ))}
      {note && <p role="status">{note}</p>}
    </div>
  );
}
