import { Link } from "@remix-run/react";
import { ru } from "../../i18n/ru";
import { hitHref, type SearchHit } from "../../lib/search-api";
import { Thumbnail } from "../thumbnail";
import { CommentCountBadge } from "../comments/comment-count-badge";
import { Highlighted } from "./highlighted";

/** Hits of a query as rows like MamGroup's list: thumbnail, highlighted name, folder path, snippet, why it matched. */
export function SearchResults({ hits }: { hits: SearchHit[] }) {
  return (
    <ul className="search-hits" data-testid="search-hits">
      {hits.map((hit) => (
        <li key={hit.id} className="search-hit">
          <Thumbnail type={hit.type} mime={hit.mime} preview={hit.preview} size={56} />
          <div className="search-hit-body">
            <Link to={hitHref(hit)} className="search-hit-name">
              <Highlighted html={hit.name_html} />
            </Link>
            <CommentCountBadge counts={hit.comments} className="hit-comments" />
            {hit.path && <div className="search-hit-path">{hit.path.split("/").join(" / ")}</div>}
            {hit.snippet && <Highlighted className="search-hit-snippet" html={hit.snippet} />}
            {hit.why.length > 0 && (
              <div className="search-hit-why">
                {ru.search.whyLabel}: {hit.why.map((w) => ru.search.why[w]).join(", ")}
              </div>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}
