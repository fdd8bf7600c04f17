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
  image: "M4 5h16v14H4V5zm0 11l4-4 3 3 4-5 5 6M9 9.5a1 1 0 100-.01",
  video: "M4 6h11v12H4V6zm11 4l5-3v10l-5-3",
  audio: "M9 18V6l10-2v12M9 18a3 3 0 11-6 0 3 3 0 016 0zm10-2a3 3 0 11-6 0 3 3 0 016 0",
  pdf: "M7 3h8l4 4v14H7V3zm8 0v4h4M9 13h2a1.5 1.5 0 010 3H9v-5M14 16v-5h3",
  text: "M7 3h8l4 4v14H7V3zm8 0v4h4M10 11h6M10 14h6M10 17h4",
  other: "M7 3h8l4 4v14H7V3zm8 0v4h4",
  upload: "M12 16V4m0 0l-4 4m4-4l4 4M4 16v3h16v-3",
  plus: "M12 5v14M5 12h14",
  grid: "M4 4h7v7H4V4zm9 0h7v7h-7V4zM4 13h7v7H4v-7zm9 0h7v7h-7v-7z",
  list: "M4 6h16M4 12h16M4 18h16",
  trash: "M5 7h14M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3",
  move: "M5 12h14M13 6l6 6-6 6",
  share: "M15 5a3 3 0 106 0 3 3 0 10-6 0zM3 12a3 3 0 106 0 3 3 0 10-6 0zm12 7a3 3 0 106 0 3 3 0 10-6 0zM8.6 13.5l6.8 4M15.4 6.5l-6.8 4",
  lock: "M6 11h12v9H6v-9zm3 0V8a3 3 0 016 0v3",
  clock: "M12 3a9 9 0 100 18 9 9 0 000-18zm0 4v5l3 2",
  tag: "M3 12V4h8l10 10-8 8L3 12zm5-5a1 1 0 100-.01",
  edit: "M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4",
  download: "M12 4v12m0 0l-4-4m4 4l4-4M4 20h16",
  copy: "M8 8h12v12H8V8zM4 16V4h12",
  restore: "M4 12a8 8 0 108-8 8 8 0 00-6 2.7M4 4v4h4",
  menu: "M4 7h16M4 12h16M4 17h16",
  more: "M4 12a1.5 1.5 0 103 0 1.5 1.5 0 10-3 0zm6.5 0a1.5 1.5 0 103 0 1.5 1.5 0 10-3 0zm6.5 0a1.5 1.5 0 103 0 1.5 1.5 0 10-3 0z",
  prev: "M15 6l-6 6 6 6",
  "zoom-in": "M11 4a7 7 0 105.3 11.6L20 19.3M11 4a7 7 0 017 7M8 11h6M11 8v6",
  "zoom-out": "M11 4a7 7 0 105.3 11.6L20 19.3M11 4a7 7 0 017 7M8 11h6",
  fullscreen: "M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5",
  star: "M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8-5.2-2.7-5.2 2.7 1-5.8-4.3-4.1 5.9-.9L12 3.5z",
  storage: "M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zm0 0v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3",
  map: "M9 4L3 6v14l6-2 6 2 6-2V4l-6 2-6-2zm0 0v14m6-12v14",
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
