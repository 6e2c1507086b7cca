const BASE = "http://safe-redirect.invalid";

/**
 * The one rule for where an action may send the visitor: any input in, a
 * path on this site out, else the fallback. The value is resolved the way a
 * browser resolves a Location header (tabs and newlines dropped, "\" read as
 * "/", dot segments removed), and the result must lead to the same place when
 * the browser reads it again: "/.//evil.example" resolves to "//evil.example",
 * which a browser would read as another site, so it falls back.
 */
export function safeRedirectPath(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || !value.startsWith("/")) return fallback;
  const url = resolve(value);
  if (url?.origin !== BASE) return fallback;
  const path = url.pathname + url.search + url.hash;
  return resolve(path)?.href === url.href ? path : fallback;
}

function resolve(value: string): URL | null {
  try {
    return new URL(value, BASE);
  } catch {
    // Not a URL at all ("//%zz", "/\%"): a bad redirect target, not a server error.
    return null;
  }
}
