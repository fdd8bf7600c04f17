import { beforeAll, describe } from "vitest";
import { budgetTests, buildWorld } from "./round-trip-fixtures";

// Decision 030: the round-trip budgets of the catalog's layout (every library in the global D1).

beforeAll(buildWorld, 90_000);

describe("round-trip budgets", budgetTests);
