const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/**
 * Text the search API sent HTML-escaped with matches in `<mark>`, rendered as React nodes (no innerHTML: only the
 * marks become elements, everything else stays text).
 */
export function Highlighted({ html, className }: { html: string; className?: string }) {
  const parts = html.split(/(<mark>|<\/mark>)/);
  let marked = false;
  const nodes: React.ReactNode[] = [];
  parts.forEach((part, i) => {
    if (part === "<mark>") marked = true;
    else if (part === "</mark>") marked = false;
    else if (part) {
      const text = part.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]);
      nodes.push(marked ? <mark key={i}>{text}</mark> : text);
    }
  });
  return <span className={className}>{nodes}</span>;
}
