// Who sent a post: its key, its network, whether it looks like a browser (the address: req.ip, decision 034).
import { isIPv4, isIPv6 } from "node:net";

export const UNKNOWN_CLIENT_KEY = "unknown";

export function clientKey(clientAddress: string | undefined): string {
  return clientAddress ? addressKey(clientAddress) : UNKNOWN_CLIENT_KEY;
}

export function networkKey(client: string): string {
  const v4 = /^(\d+\.\d+\.\d+)\.\d+$/.exec(client);
  if (v4) return `${v4[1]}.0/24`;
  const v6 = /^([0-9a-f]+:[0-9a-f]+:[0-9a-f]+):[0-9a-f]+::\/64$/.exec(client);
  return v6 ? `${v6[1]}::/48` : client;
}

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

const AUTOMATION_UA = /headless|phantomjs|puppeteer|playwright|selenium|webdriver/i;

export const namesAutomation = (request: Request) =>
  AUTOMATION_UA.test(request.headers.get("user-agent") ?? "");

export function looksHeadless(request: Request): boolean {
  const userAgent = request.headers.get("user-agent") ?? "";
  const languages = request.headers.get("accept-language") ?? "";
  return userAgent.trim() === "" || languages.trim() === "" || namesAutomation(request);
}
