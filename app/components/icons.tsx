/** Line icons (24×24, stroke = currentColor) used by the shell and lists. */
const PATHS = {
  logo: "M4 7l8-4 8 4-8 4-8-4zm0 5l8 4 8-4M4 17l8 4 8-4",
  folder: "M3 7a2 2 0 012-2h4l2 2h8a2 2 0 012 2v8a2 2 0 01-2 2H5a2 2 0 01-2-2V7z",
  search: "M11 4a7 7 0 105.3 11.6L20 19.3M11 4a7 7 0 017 7",
  jobs: "M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01",
  automations: "M13 3L4 14h7l-1 7 9-11h-7l1-7z",
  shop: "M5 8h14l-1 12H6L5 8zm4 0V6a3 3 0 016 0v2",
  admin: "M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6l8-3z",
  logout: "M15 4h3a2 2 0 012 2v12a2 2 0 01-2 2h-3M10 8l-4 4 4 4M6 12h10",
  docs: "M7 3h8l4 4v14H7V3zm8 0v4h4M10 12h6M10 16h6",
  chevron: "M9 6l6 6-6 6",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 18, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      className={className}
      aria-hidden="true"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
