const BASE = "http://safe-redirect.invalid";

// Any input in, a path on this site out: one that resolves to itself again ("/.//evil.example" does not).
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
