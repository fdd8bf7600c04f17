/**
 * Round-trip budgets (decision 030): the most sequential D1 round trips each main screen and API call may take, as
 * counted by the request's RoundTripMeter and reported in Server-Timing. A far user waits about one database
 * distance per round trip, so these are latency budgets; tests/integration/round-trip-budget.test.ts fails a route
 * that goes over, and bench/edge.mjs shows what each one costs at a distance. `before` is what the route took before
 * issue 27 (measured the same way, the larger of a non-admin reader's and the administrator's count), kept so the
 * benchmark and the decision record can show the change. What is left in each route is in decision 030.
 */
export interface RoundTripBudget {
  /** what the route is, as the test and the benchmark name it */
  route: string;
  /** the most sequential round trips allowed */
  budget: number;
  /** measured before issue 27 */
  before: number;
}

export const ROUND_TRIP_BUDGETS = {
  ping: { route: "GET /api/ping", budget: 0, before: 0 },
  whoami: { route: "GET /api/auth/whoami", budget: 1, before: 2 },
  members: { route: "GET /api/group/members/{id}", budget: 3, before: 6 },
  groupInfo: { route: "GET /api/group/get/{id}", budget: 3, before: 5 },
  assetInfo: { route: "GET /api/asset/{id}", budget: 3, before: 5 },
  // A reader is as an administrator since decision 039: the index decides visibility, the rule nodes ride with sign-in.
  // Since decision 040 the index has a database of its own: sign-in (both epochs beside it), the ranked window from
  // SEARCH with the likely page's highlights and a total's first chunk (decision 041), then the page from DB beside
  // that page's places and the count. A cached answer stops after the first.
  searchApi: { route: "GET /api/search/query/{x}", budget: 3, before: 6 },
  loginPage: { route: "page /login", budget: 0, before: 0 },
  folderPage: { route: "page /mam/{id}", budget: 2, before: 4 },
  viewerPage: { route: "page /mam/{g}/asset/{id}", budget: 2, before: 4 },
  searchPage: { route: "page /search?q=…", budget: 1, before: 2 },
  // A miss pays the edge cache's probe (the link's password flag, state and revision: one indexed read) before the
  // page's own three; every later open until something changes is answered after that probe alone.
  shortlinkPage: { route: "page /sl/{id} (edge cache miss)", budget: 4, before: 5 },
  shortlinkPageCached: { route: "page /sl/{id} (edge cache hit)", budget: 1, before: 5 },
  // The tree form with files (decision record 032): after the access check (group row, then its rights), a miss reads
  // the versions with the folders in one batch, then the files of the folders that hold any in one more; an
  // administrator's cache hit reads only the versions, beside the group row. `before`: the tree built every time.
  subtree: { route: "GET /api/group/subtree/{id}", budget: 5, before: 5 },
  subtreeCached: { route: "GET /api/group/subtree/{id} (cache hit)", budget: 3, before: 5 },
  // A collection's page (decision record 034): the caller's rights summary, then the role check beside the page with
  // its counts (a deep page: beside the page from the caller's checkpoints; when his list is not current, one more
  // trip builds it and reads the page from it, in one batch, once per change). A file's comments (decision record 035): after sign-in, the file, its access chain, the follow flag
  // and either the list (an isolate that has not answered it lately) or the list's revisions (one that has: a hit
  // answers from memory) together; an answer kept from before a change costs one more, the list read after the
  // revisions said so (tests/integration/comments-list-cache.test.ts). `before`: the same (these were first budgeted
  // after the paging work, which kept the trips).
  collectionItems: { route: "GET /api/collections/{id}/items", budget: 2, before: 2 },
  comments: { route: "GET /api/asset/{id}/comments", budget: 2, before: 2 },
} satisfies Record<string, RoundTripBudget>;

export type BudgetedRoute = keyof typeof ROUND_TRIP_BUDGETS;
