import { useMemo, useRef } from "react";
import { ru } from "../../i18n/ru";

/**
 * A plain-text editor: a textarea with a line-number gutter that scrolls with it, Tab inserting a tab, and Ctrl+S
 * (⌘S) saving. Enough for text, Markdown, CSV and JSON without a code-editor dependency in the client bundle.
 */
export function TextEditor(props: { value: string; onChange: (v: string) => void; onSave: () => void; readOnly: boolean }) {
  const gutter = useRef<HTMLDivElement>(null);
  const lines = useMemo(() => props.value.split("\n").length, [props.value]);
  const numbers = useMemo(() => Array.from({ length: lines }, (_, i) => i + 1).join("\n"), [lines]);
  return (
    <div className="text-editor">
      <div ref={gutter} className="text-gutter" aria-hidden="true">
        {numbers}
      </div>
      <textarea
        className="text-area"
        aria-label={ru.editor.textAreaLabel}
        spellCheck={false}
        value={props.value}
        readOnly={props.readOnly}
        onChange={(e) => props.onChange(e.target.value)}
        onScroll={(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
        }}
        onKeyDown={(e) => {
          if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
            e.preventDefault();
            props.onSave();
          } else if (e.key === "Tab" && !props.readOnly) {
            e.preventDefault();
            const t = e.currentTarget;
            const { selectionStart: a, selectionEnd: b } = t;
            props.onChange(`${t.value.slice(0, a)}\t${t.value.slice(b)}`);
            requestAnimationFrame(() => t.setSelectionRange(a + 1, a + 1));
          }
        }}
      />
    </div>
  );
}
