// The environment is read once at start: defaults as the README's Configuration table lists them,
// a clear refusal to start on partial or bad values, and no secret in any
// message.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "~/config.server";

function load(env: Record<string, string | undefined>) {
  const lines: string[] = [];
  const logger = {
    info: (line: string) => lines.push(`info ${line}`),
    warn: (line: string) => lines.push(`warn ${line}`),
  };
  return { config: loadConfig(env, logger), lines };
}

const IDS = {
  EMAILJS_PUBLIC_KEY: "pk_SECRET_1",
  EMAILJS_SERVICE_ID: "svc_SECRET_2",
  EMAILJS_TEMPLATE_ID: "tpl_SECRET_3",
};

describe("defaults", () => {
  it("no variables at all: outbox mode and the documented defaults, announced once", () => {
    const { config, lines } = load({});
    expect(config).toEqual({
      mail: { mode: "outbox", dir: path.resolve("./outbox") },
      rateLimit: { max: 5, windowSeconds: 600 },
      blocklist: new Set(),
      blockHeadless: false,
      trustProxyHops: 0,
      port: 3000,
    });
    expect(lines).toEqual([
      `info [contact] No EmailJS ids set: contact messages are not mailed but written to the outbox at ${path.resolve("./outbox")}`,
      expect.stringMatching(/^warn \[contact\] TRUST_PROXY is not set: .*share one rate-limit key/),
    ]);
  });

  it("all three ids: relay mode against api.emailjs.com, silently", () => {
    const { config, lines } = load({ ...IDS, TRUST_PROXY: "1" });
    expect(config.mail).toEqual({
      mode: "relay",
      apiUrl: "https://api.emailjs.com",
      publicKey: "pk_SECRET_1",
      serviceId: "svc_SECRET_2",
      templateId: "tpl_SECRET_3",
    });
    expect(lines).toEqual([]);
  });

  it("reads every variable", () => {
    const { config } = load({
      ...IDS,
      EMAILJS_PRIVATE_KEY: "priv_SECRET_4",
      EMAILJS_API_URL: "http://127.0.0.1:9999/",
      CONTACT_RATE_LIMIT_MAX: "3",
      CONTACT_RATE_LIMIT_WINDOW_SECONDS: "60",
      CONTACT_BLOCKLIST: " Spam@Example.com ,,other@example.net ",
      CONTACT_BLOCK_HEADLESS: "TRUE",
      OUTBOX_DIR: "/tmp/ignored-in-relay-mode",
      TRUST_PROXY: "2",
      PORT: "8080",
    });
    expect(config).toEqual({
      mail: {
        mode: "relay",
        apiUrl: "http://127.0.0.1:9999",
        publicKey: "pk_SECRET_1",
        serviceId: "svc_SECRET_2",
        templateId: "tpl_SECRET_3",
        privateKey: "priv_SECRET_4",
      },
      rateLimit: { max: 3, windowSeconds: 60 },
      blocklist: new Set(["spam@example.com", "other@example.net"]),
      blockHeadless: true,
      trustProxyHops: 2,
      port: 8080,
    });
  });

  it.each([
    ["true", 1],
    ["1", 1],
    ["3", 3],
    ["false", 0],
    ["", 0],
  ])("TRUST_PROXY=%s means %i trusted proxies", (value, hops) => {
    expect(load({ TRUST_PROXY: value }).config.trustProxyHops).toBe(hops);
  });

  it("empty ids count as unset (NAME= in an env file)", () => {
    const { config } = load({ EMAILJS_PUBLIC_KEY: "", EMAILJS_SERVICE_ID: " ", EMAILJS_TEMPLATE_ID: "" });
    expect(config.mail.mode).toBe("outbox");
  });
});

describe("the server refuses to start", () => {
  it.each([
    [{ EMAILJS_PUBLIC_KEY: "pk_SECRET_1" }, "EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID"],
    [{ EMAILJS_SERVICE_ID: "svc_SECRET_2", EMAILJS_TEMPLATE_ID: "tpl_SECRET_3" }, "EMAILJS_PUBLIC_KEY"],
    [{ ...IDS, EMAILJS_TEMPLATE_ID: "" }, "EMAILJS_TEMPLATE_ID"],
  ])("with only some EmailJS ids (%o), naming the missing ones", (env, missing) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(`Missing: ${missing}`);
    try {
      load(env);
    } catch (error) {
      expect(String(error)).not.toMatch(/SECRET/);
    }
  });

  it.each([
    ["CONTACT_RATE_LIMIT_MAX", "many"],
    ["CONTACT_RATE_LIMIT_MAX", "0"],
    ["CONTACT_RATE_LIMIT_WINDOW_SECONDS", "-5"],
    ["CONTACT_BLOCK_HEADLESS", "maybe"],
    ["TRUST_PROXY", "yes-please"],
    ["PORT", "70000"],
    ["EMAILJS_API_URL", "ftp://SECRET.example"],
  ])("on a bad %s, naming it and not echoing the value", (name, value) => {
    let message = "";
    try {
      load({ ...IDS, [name]: value });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain(name);
    expect(message).not.toContain(value);
    expect(message).not.toMatch(/SECRET/);
  });
});
