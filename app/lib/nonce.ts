import { createContext, useContext } from "react";

/**
 * The Content-Security-Policy nonce of the page being rendered on the server. Browsers hide a nonce from scripts
 * after load, so on the client it is empty: React keeps the server's attribute during hydration.
 */
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

/** The nonce to put on inline scripts the page renders. */
export function useNonce(): string {
  return useContext(NonceContext);
}
