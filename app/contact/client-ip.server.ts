// Who "one client" is for the rate limit (DESIGN.md, "The mail relay contract").
// remix-serve gives the app no socket address, so behind N trusted proxies the
// client is the N-th address from the right of X-Forwarded-For: the entries
// our own proxies appended, which a visitor cannot forge.

/** Key shared by every request whose client cannot be told apart. */
export const SHARED_CLIENT_KEY = "shared";

export function clientKey(request: Request, trustProxyHops: number): string {
  if (trustProxyHops < 1) return SHARED_CLIENT_KEY;
  const hops = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Fewer entries than proxies: the request skipped an outer proxy, and the
  // left-most entry is the peer the first trusted proxy saw.
  const address = hops[Math.max(0, hops.length - trustProxyHops)] ?? SHARED_CLIENT_KEY;
  // Bounded so a hostile header cannot grow the limiter's memory.
  return address.slice(0, 64).toLowerCase();
}
