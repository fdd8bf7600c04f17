import { Lexer, type Token, type Tokens } from "marked";
import { Fragment, type ReactNode } from "react";
import { ru } from "../i18n/ru";

/** Tokens drawn at most: a document of a million list items is shown up to here, never walked further. */
const MAX_TOKENS = 20_000;
/** Nesting drawn at most (quotes in lists in quotes …); deeper content is shown as its source text. */
const MAX_DEPTH = 24;

/**
 * Where a Markdown link may lead: the web, mail, or a place on this page. Anything else (javascript:, data:,
 * vbscript:, a scheme we do not know) is shown as text. Decided on the parsed URL, not on the string.
 */
export function safeHref(href: string): string | null {
  if (href.startsWith("#")) return href;
  try {
    const url = new URL(href);
    return url.protocol === "https:" || url.protocol === "http:" || url.protocol === "mailto:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A Markdown file in the viewer, drawn from marked's tokens as React elements (never as an HTML string): raw HTML
 * in the document is shown as the text it is, never rendered; links are kept only to the web, mail and anchors
 * (opened in a new tab, without the opener or a referrer); images are not fetched (a remote picture would tell its
 * server who reads the file) but shown as a link with their description.
 */
export function MarkdownView({ source }: { source: string }) {
  let budget = MAX_TOKENS;
  const tokens = new Lexer({ gfm: true }).lex(source);

  const inline = (list: Token[] | undefined, depth: number): ReactNode => (list ?? []).map((t, i) => <Fragment key={i}>{node(t, depth)}</Fragment>);
  const block = inline;

  function node(token: Token, depth: number): ReactNode {
    if (--budget < 0) return null;
    if (depth > MAX_DEPTH) return token.raw;
    const t = token as Tokens.Generic;
    switch (token.type) {
      case "heading": {
        const h = token as Tokens.Heading;
        const level = Math.min(Math.max(h.depth, 1), 6);
        const Tag = `h${level}` as "h1";
        return <Tag>{inline(h.tokens, depth + 1)}</Tag>;
      }
      case "paragraph":
        return <p>{inline((token as Tokens.Paragraph).tokens, depth + 1)}</p>;
      case "text":
        return t.tokens ? inline(t.tokens as Token[], depth + 1) : (t.text as string);
      case "escape":
        return (token as Tokens.Escape).text;
      case "strong":
        return <strong>{inline((token as Tokens.Strong).tokens, depth + 1)}</strong>;
      case "em":
        return <em>{inline((token as Tokens.Em).tokens, depth + 1)}</em>;
      case "del":
        return <del>{inline((token as Tokens.Del).tokens, depth + 1)}</del>;
      case "codespan":
        return <code>{(token as Tokens.Codespan).text}</code>;
      case "br":
        return <br />;
      case "hr":
        return <hr />;
      case "space":
      case "def":
        return null;
      case "code":
        return (
          <pre>
            <code>{(token as Tokens.Code).text}</code>
          </pre>
        );
      case "blockquote":
        return <blockquote>{block((token as Tokens.Blockquote).tokens, depth + 1)}</blockquote>;
      case "list": {
        const list = token as Tokens.List;
        const items = list.items.map((item, i) => (
          <li key={i}>
            {item.task && <input type="checkbox" checked={item.checked === true} disabled readOnly aria-label={item.checked ? ru.viewerTypes.taskDone : ru.viewerTypes.taskOpen} />}
            {block(item.tokens, depth + 1)}
          </li>
        ));
        return list.ordered ? <ol start={typeof list.start === "number" ? list.start : undefined}>{items}</ol> : <ul>{items}</ul>;
      }
      case "checkbox":
        return null;
      case "table": {
        const table = token as Tokens.Table;
        return (
          <div className="md-view-table">
            <table>
              <thead>
                <tr>
                  {table.header.map((cell, i) => (
                    <th key={i} style={cell.align ? { textAlign: cell.align } : undefined}>
                      {inline(cell.tokens, depth + 1)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {table.rows.map((row, r) => (
                  <tr key={r}>
                    {row.map((cell, i) => (
                      <td key={i} style={cell.align ? { textAlign: cell.align } : undefined}>
                        {inline(cell.tokens, depth + 1)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      }
      case "link": {
        const link = token as Tokens.Link;
        const href = safeHref(link.href);
        const children = inline(link.tokens, depth + 1);
        return href ? (
          <a href={href} title={link.title ?? undefined} target="_blank" rel="noopener noreferrer nofollow">
            {children}
          </a>
        ) : (
          <span>{children}</span>
        );
      }
      case "image": {
        const image = token as Tokens.Image;
        const href = safeHref(image.href);
        const label = ru.viewerTypes.image(image.text || image.href);
        return href ? (
          <a href={href} target="_blank" rel="noopener noreferrer nofollow">
            {label}
          </a>
        ) : (
          <span>{label}</span>
        );
      }
      case "html":
        // Raw HTML is the document's text, shown as written.
        return <code className="md-view-html">{token.raw}</code>;
      default:
        return token.raw;
    }
  }

  return (
    <div className="md-view" data-testid="markdown-view" aria-label={ru.viewerTypes.markdownLabel}>
      {block(tokens, 0)}
    </div>
  );
}
