const BASE = "http://safe-redirect.invalid";

/**
 * Only same-site paths. The value is resolved the way a browser would resolve
 * a Location header (tabs and newlines dropped, "\" read as "/"), so tricks
 * like "//evil.example", "/\evil.example" or "/\t/evil.example" fall back.
 */
export function safeRedirectPath(value: FormDataEntryValue | null, fallback = "/") {
  if (typeof value !== "string" || !value.startsWith("/")) return fallback;
  const url = new URL(value, BASE);
  if (url.origin !== BASE) return fallback;
  return url.pathname + url.search + url.hash;
}
