import { createContext, useContext } from "react";

/**
 * The per-request CSP nonce, made in entry.server.tsx. Browsers hide the
 * attribute from scripts, so on the client this is "" and React keeps the
 * server-rendered value.
 */
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

export function useNonce() {
  return useContext(NonceContext);
}
