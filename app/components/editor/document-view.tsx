import { ru } from "../../i18n/ru";
import type { TextBlock } from "../../lib/wopi-client";

/** A cell holding just a number (digits with spaces, a sign, separators, a percent or currency sign). */
const NUMBER = /^(?=.*\d)[-+−]?[\d\s\u00a0.,]+\s?[%₽$€]?$/;

/**
 * A document shown read-only without an office server: the headings, paragraphs and table rows the host extracted
 * from the DOCX/XLSX/PPTX/ODF XML. Rows of one sheet become one table.
 */
export function DocumentView({ blocks, truncated }: { blocks: TextBlock[]; truncated: boolean }) {
  const out: React.ReactNode[] = [];
  let rows: string[][] = [];
  const flush = (key: string) => {
    if (rows.length === 0) return;
    const current = rows;
    rows = [];
    // A column is right-aligned, header included, when every filled cell below the first row is a number.
    const numeric = new Set<number>();
    const width = Math.max(...current.map((r) => r.length));
    for (let j = 0; j < width; j++) {
      const below = current.slice(1).map((r) => (r[j] ?? "").trim()).filter(Boolean);
      if (below.length > 0 && below.every((c) => NUMBER.test(c))) numeric.add(j);
    }
    out.push(
      <div key={key} className="doc-table-wrap">
        <table className="table doc-table">
          <tbody>
            {current.map((cells, i) => (
              <tr key={i}>
                {cells.map((c, j) => (
                  <td key={j} className={numeric.has(j) ? "num" : undefined}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>,
    );
  };
  blocks.forEach((b, i) => {
    if (b.type === "row") {
      rows.push(b.cells);
      return;
    }
    flush(`t${i}`);
    if (b.type === "sheet") out.push(<h2 key={i}>{ru.editor.sheet(b.name)}</h2>);
    else if (b.type === "heading") out.push(<h2 key={i}>{b.text}</h2>);
    else out.push(<p key={i}>{b.text || "\u00a0"}</p>);
  });
  flush("end");
  return (
    <article className="doc-view" data-testid="document-view">
      {out.length === 0 ? <p className="muted">{ru.editor.emptyDocument}</p> : out}
      {truncated && <p className="muted">{ru.editor.textTruncated}</p>}
    </article>
  );
}
