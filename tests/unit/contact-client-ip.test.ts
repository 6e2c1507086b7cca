// Who one client is for the contact limits: the address the server resolved (Express's req.ip under
// TRUST_PROXY, tested on the wire in trust-proxy.test.ts), keyed per IPv4 address and IPv6 /64.
import { describe, expect, it } from "vitest";
import { clientKey, networkKey, UNKNOWN_CLIENT_KEY } from "~/contact/guard/client.server";

describe("clientKey", () => {
  it.each([
    [undefined, UNKNOWN_CLIENT_KEY],
    ["", UNKNOWN_CLIENT_KEY],
    ["203.0.113.7", "203.0.113.7"],
    ["203.0.113.7:4711", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    // One key per IPv6 /64, however the address is written.
    ["2001:DB8:0:0a::1", "2001:db8:0:a::/64"],
    ["2001:db8:0:a:ffff:1:2:3", "2001:db8:0:a::/64"],
    ["[2001:db8:0:a::5]:4711", "2001:db8:0:a::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["not-an-address", "not-an-address"],
  ])("%j -> %s", (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it("bounds the key's length", () => {
    expect(clientKey("x".repeat(10_000))).toHaveLength(64);
  });

  it("puts each client in its network: an IPv4 /24, an IPv6 /48", () => {
    expect(networkKey(clientKey("203.0.113.7"))).toBe("203.0.113.0/24");
    expect(networkKey(clientKey("2001:db8:77:a::1"))).toBe("2001:db8:77::/48");
  });
});
