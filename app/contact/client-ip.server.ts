// Who "one client" is for the rate limit (docs/configuration.md: TRUST_PROXY).
// A public site always sits behind a TLS-terminating proxy, so the socket's
// peer is the proxy: behind N trusted proxies the client is the N-th address
// from the right of X-Forwarded-For, the entries our own proxies appended,
// which a visitor cannot forge.
import { isIPv4, isIPv6 } from "node:net";

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
  const address = hops[Math.max(0, hops.length - trustProxyHops)];
  return address ? addressKey(address) : SHARED_CLIENT_KEY;
}

/**
 * One key per IPv4 address and per IPv6 /64: a single IPv6 subscriber
 * usually holds a whole /64 and could otherwise rotate through it.
 */
function addressKey(entry: string): string {
  // Some proxies add a port: "203.0.113.7:4711", "[2001:db8::1]:4711".
  const address = (entry.match(/^\[([^\]]+)\](?::\d+)?$/)?.[1] ?? entry.replace(/^([\d.]+):\d+$/, "$1"))
    .replace(/%.*$/, "") // IPv6 zone id
    .toLowerCase();
  const mapped = address.match(/^::ffff:([\d.]+)$/)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(address)) return address.slice(0, 64); // bounded: a hostile header cannot grow the limiter
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
