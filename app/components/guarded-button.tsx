import type { ButtonHTMLAttributes } from "react";

/**
 * A button for an action the caller may lack the right for: with a `reason` it stays visible but disabled, and the
 * reason is its tooltip (aria-disabled rather than `disabled`, so the browser still shows the title on hover and the
 * button can be focused and read out). Without a reason it is a plain button.
 */
export function GuardedButton({
  reason,
  title,
  onClick,
  className = "btn",
  children,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { reason: string | null }) {
  const refused = reason != null;
  return (
    <button
      type="button"
      {...rest}
      className={`${className}${refused ? " is-refused" : ""}`}
      aria-disabled={refused || undefined}
      title={refused ? reason : title}
      data-refused={refused ? reason : undefined}
      onClick={(e) => {
        if (refused) {
          e.preventDefault();
          e.stopPropagation();
          return;
        }
        onClick?.(e);
      }}
    >
      {children}
    </button>
  );
}
