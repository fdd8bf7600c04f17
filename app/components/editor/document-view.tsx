import { ru } from "../../i18n/ru";
import type { TextBlock } from "../../lib/wopi-client";

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
    out.push(
      <div key={key} className="doc-table-wrap">
        <table className="table doc-table">
          <tbody>
            {current.map((cells, i) => (
              <tr key={i}>
                {cells.map((c, j) => (
                  <td key={j}>{c}</td>
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
