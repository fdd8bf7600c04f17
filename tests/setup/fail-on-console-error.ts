import { afterEach, beforeEach, vi, type MockInstance } from "vitest";

/**
 * A stray `console.error` fails the test that caused it (as in Epic Stack's setup-test-env): every error log must
 * be expected. A test that expects one says so by mocking it, either with
 * `vi.spyOn(console, "error").mockImplementation(() => {})` or with `expectConsoleError()`, and asserts on the
 * calls itself.
 */
let spy: MockInstance<typeof console.error>;
let expected = false;

beforeEach(() => {
  expected = false;
  spy = vi.spyOn(console, "error");
});

afterEach(() => {
  const calls = [...spy.mock.calls];
  const mockedByTest = spy.getMockImplementation() !== undefined;
  spy.mockRestore();
  if (!expected && !mockedByTest && calls.length > 0) {
    throw new Error(`Unexpected console.error in this test:\n${calls.map((args) => args.map(String).join(" ")).join("\n")}`);
  }
});

/** Silences console.error for the current test and returns the spy to assert on. */
export function expectConsoleError(): MockInstance<typeof console.error> {
  expected = true;
  return spy.mockImplementation(() => {});
}
