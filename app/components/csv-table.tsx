import Papa from "papaparse";
import { ru } from "../i18n/ru";

/** Rows shown at most: a table past this says it shows only the first ones. */
export const CSV_SHOWN_ROWS = 500;
/** Columns shown at most: a row of ten thousand cells is cut, not laid out. */
const CSV_SHOWN_COLUMNS = 200;

/**
 * A CSV or TSV file as a table: parsed by papaparse (quotes, delimiters found by the parser — comma, semicolon,
 * tab), the first row as the header, at most CSV_SHOWN_ROWS rows. `cut` says the text is only the file's start
 * (its last, possibly partial, row is then dropped).
 */
export function CsvTable({ source, cut, tab }: { source: string; cut: boolean; tab: boolean }) {
  const parsed = Papa.parse<string[]>(source, {
    delimiter: tab ? "\t" : "",
    skipEmptyLines: "greedy",
    preview: CSV_SHOWN_ROWS + 2,
  });
  const rows = parsed.data.filter((row) => Array.isArray(row));
  if (cut && rows.length > 1) rows.pop();
  const [header, ...body] = rows;
  if (!header) return <div className="csv-view muted">{ru.viewerTypes.csvEmpty}</div>;
  const shown = body.slice(0, CSV_SHOWN_ROWS);
  const more = cut || body.length > CSV_SHOWN_ROWS;
  const width = Math.min(CSV_SHOWN_COLUMNS, Math.max(header.length, ...shown.map((r) => r.length)));
  const cells = (row: string[]) => Array.from({ length: width }, (_, i) => row[i] ?? "");
  return (
    <div className="csv-view" data-testid="csv-view" aria-label={ru.viewerTypes.csvLabel}>
      <div className="csv-view-scroll">
        <table>
          <thead>
            <tr>
              {cells(header).map((cell, i) => (
                <th key={i}>{cell}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, r) => (
              <tr key={r}>
                {cells(row).map((cell, i) => (
                  <td key={i}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more && (
        <p className="muted csv-view-note" data-testid="csv-note">
          {ru.viewerTypes.csvFirstRows(shown.length)}
        </p>
      )}
    </div>
  );
}
