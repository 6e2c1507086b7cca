/**
 * Caching for HTML and its loader data. The theme class comes from a cookie
 * and every document carries a fresh CSP nonce, so no shared cache may keep a
 * copy (a reused nonce is a guessable one) and the browser must ask again
 * before reusing its own. A route that sets Cache-Control itself keeps it.
 */
export function applyPageCaching(headers: Headers) {
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "private, no-cache");
  headers.append("Vary", "Cookie");
  return headers;
}
