// Who one client is for the rate limit: the TRUST_PROXY rule (docs/configuration.md).
import { describe, expect, it } from "vitest";
import { clientKey, UNKNOWN_CLIENT_KEY } from "~/contact/guards.server";

describe("clientKey (TRUST_PROXY)", () => {
  const request = (xff?: string) =>
    new Request("http://x/", { headers: xff === undefined ? {} : { "X-Forwarded-For": xff } });

  it.each([
    [1, undefined, UNKNOWN_CLIENT_KEY],
    [1, " , ,", UNKNOWN_CLIENT_KEY],
    [1, "203.0.113.7", "203.0.113.7"],
    [1, "1.1.1.1, 203.0.113.7", "203.0.113.7"],
    [2, "1.1.1.1,203.0.113.7 , 10.0.0.1", "203.0.113.7"],
    // Fewer entries than proxies: the left-most is what the first trusted proxy saw.
    [3, "203.0.113.7, 10.0.0.1", "203.0.113.7"],
    [1, "203.0.113.7:4711", "203.0.113.7"],
    [1, "::ffff:203.0.113.7", "203.0.113.7"],
    // One key per IPv6 /64, however the address is written.
    [1, "2001:DB8:0:0a::1", "2001:db8:0:a::/64"],
    [1, "2001:db8:0:a:ffff:1:2:3", "2001:db8:0:a::/64"],
    [1, "[2001:db8:0:a::5]:4711", "2001:db8:0:a::/64"],
    [1, "fe80::1%eth0", "fe80:0:0:0::/64"],
    [1, "::1", "0:0:0:0::/64"],
    [1, "not-an-address", "not-an-address"],
  ])("hops %i, X-Forwarded-For %j -> %s", (hops, xff, key) => {
    expect(clientKey(request(xff), hops)).toBe(key);
  });

  it("without a trusted proxy, a client is the address that connected, whatever the headers say", () => {
    expect(clientKey(request("203.0.113.7"), 0, "198.51.100.4")).toBe("198.51.100.4");
    expect(clientKey(request(), 0, "::ffff:198.51.100.4")).toBe("198.51.100.4");
    expect(clientKey(request(), 0, "2001:db8:0:a::9")).toBe("2001:db8:0:a::/64");
    expect(clientKey(request("203.0.113.7"), 0)).toBe(UNKNOWN_CLIENT_KEY);
  });

  it("behind a proxy that sent no X-Forwarded-For, the client is the proxy's peer", () => {
    expect(clientKey(request(), 1, "10.0.0.2")).toBe("10.0.0.2");
  });

  it("bounds the key's length", () => {
    expect(clientKey(request("x".repeat(10_000)), 1)).toHaveLength(64);
  });
});
