// The environment is read once at start: defaults as docs/configuration.md lists them,
// a clear refusal to start on partial or bad values, and no secret in any
// message.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "~/config.server";
import { isBlocked } from "~/contact/guard/limits.server";

function load(env: Record<string, string | undefined>) {
  const lines: string[] = [];
  const logger = {
    info: (line: string) => lines.push(`info ${line}`),
    warn: (line: string) => lines.push(`warn ${line}`),
  };
  return { config: loadConfig(env, logger), lines };
}

const SECRET = "s3cret-SECRET-0123456789abcdef-xyz";

const IDS = {
  EMAILJS_PUBLIC_KEY: "pk_SECRET_1",
  EMAILJS_SERVICE_ID: "svc_SECRET_2",
  EMAILJS_TEMPLATE_ID: "tpl_SECRET_3",
};

describe("defaults", () => {
  it("no variables at all: outbox mode and the documented defaults, announced once", () => {
    const { config, lines } = load({});
    expect(config).toEqual({
      mail: {
        mode: "outbox",
        dir: path.resolve("./outbox"),
        outboxDir: path.resolve("./outbox"),
      },
      alerts: null,
      rateLimit: { max: 5, windowSeconds: 600 },
      blocklist: { addresses: new Set(), domains: new Set() },
      blockHeadless: false,
      botChecks: { enabled: true, proofMinSeconds: 3, confirmMinSeconds: 2, maxAgeMinutes: 60 },
      spamThreshold: 3,
      budget: { daily: 100, monthly: 200, monthStartsOn: 1, monthSeconds: null },
      maxPerSecond: 1,
      providerProbeSeconds: 600,
      keepDays: 30,
      waitingAlertMinutes: 60,
      networkDailyLimit: 10,
      networkDaySeconds: null,
      redelivery: { firstSeconds: 60, uncertainSeconds: 900, maxSeconds: 3600, forHours: 72 },
      trustProxy: 0,
      databaseUrl: null,
      port: 3000,
      host: null,
      sessionSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
      sessionSecretSet: false,
      siteUrl: null,
    });
    expect(lines).toEqual([
      `info [contact] No EmailJS ids set: contact messages are not mailed but written to the outbox at ${path.resolve("./outbox")}`,
      expect.stringMatching(
        /^warn \[contact\] TRUST_PROXY is not set: .*each visitor is the address that connects/,
      ),
      expect.stringMatching(
        /^info \[contact\] DATABASE_URL is not set: .*Several replicas need DATABASE_URL\.$/,
      ),
      expect.stringMatching(/^warn \[session\] SESSION_SECRET is not set: .*replicas do not share them/),
    ]);
  });

  it("all three ids: relay mode against api.emailjs.com, silently", () => {
    const { config, lines } = load({
      ...IDS,
      TRUST_PROXY: "1",
      HOST: "127.0.0.1",
      SESSION_SECRET: SECRET,
      DATABASE_URL: "postgres://portfolio:SECRET@db:5432/portfolio",
    });
    expect(config.mail).toEqual({
      mode: "relay",
      apiUrl: "https://api.emailjs.com",
      publicKey: "pk_SECRET_1",
      serviceId: "svc_SECRET_2",
      templateId: "tpl_SECRET_3",
      outboxDir: path.resolve("./outbox"),
    });
    expect(lines).toEqual([]);
  });

  it("reads every variable", () => {
    const { config } = load({
      ...IDS,
      EMAILJS_PRIVATE_KEY: "priv_SECRET_4",
      EMAILJS_API_URL: "http://127.0.0.1:9999/",
      OWNER_ALERT_URL: "https://hooks.slack.com/services/T0/B0/SECRET_5",
      OWNER_ALERT_FORMAT: "JSON",
      CONTACT_RATE_LIMIT_MAX: "3",
      CONTACT_RATE_LIMIT_WINDOW_SECONDS: "60",
      CONTACT_BLOCKLIST: " Spam@Example.com ,,other@example.net ",
      CONTACT_BLOCK_HEADLESS: "TRUE",
      CONTACT_BOT_CHECKS: "off",
      CONTACT_PROOF_MIN_SECONDS: "5",
      CONTACT_CONFIRM_MIN_SECONDS: "4",
      CONTACT_PROOF_MAX_MINUTES: "30",
      CONTACT_SPAM_THRESHOLD: "6",
      CONTACT_DAILY_SEND_LIMIT: "20",
      CONTACT_MONTHLY_SEND_LIMIT: "1000",
      CONTACT_MONTH_STARTS_ON: "15",
      CONTACT_MONTH_SECONDS: "600",
      EMAILJS_MAX_PER_SECOND: "2",
      CONTACT_PROVIDER_PROBE_SECONDS: "60",
      CONTACT_KEEP_DAYS: "7",
      CONTACT_WAITING_ALERT_MINUTES: "15",
      CONTACT_NETWORK_DAILY_LIMIT: "25",
      CONTACT_REDELIVER_FIRST_SECONDS: "5",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "50",
      CONTACT_REDELIVER_MAX_SECONDS: "500",
      CONTACT_REDELIVER_FOR_HOURS: "24",
      OUTBOX_DIR: "/tmp/relay-keeps-undelivered-here",
      TRUST_PROXY: "2",
      DATABASE_URL: "postgres://portfolio:SECRET@db:5432/portfolio",
      SITE_URL: "https://example.com/ignored/path",
      PORT: "8080",
      HOST: "127.0.0.1",
      SESSION_SECRET: SECRET,
    });
    expect(config).toEqual({
      mail: {
        mode: "relay",
        apiUrl: "http://127.0.0.1:9999",
        publicKey: "pk_SECRET_1",
        serviceId: "svc_SECRET_2",
        templateId: "tpl_SECRET_3",
        privateKey: "priv_SECRET_4",
        outboxDir: "/tmp/relay-keeps-undelivered-here",
      },
      alerts: { url: "https://hooks.slack.com/services/T0/B0/SECRET_5", format: "json" },
      rateLimit: { max: 3, windowSeconds: 60 },
      blocklist: { addresses: new Set(["spam@example.com", "other@example.net"]), domains: new Set() },
      blockHeadless: true,
      botChecks: { enabled: false, proofMinSeconds: 5, confirmMinSeconds: 4, maxAgeMinutes: 30 },
      spamThreshold: 6,
      budget: { daily: 20, monthly: 1000, monthStartsOn: 15, monthSeconds: 600 },
      maxPerSecond: 2,
      providerProbeSeconds: 60,
      keepDays: 7,
      waitingAlertMinutes: 15,
      networkDailyLimit: 25,
      networkDaySeconds: null,
      redelivery: { firstSeconds: 5, uncertainSeconds: 50, maxSeconds: 500, forHours: 24 },
      trustProxy: 2,
      databaseUrl: "postgres://portfolio:SECRET@db:5432/portfolio",
      port: 8080,
      host: "127.0.0.1",
      sessionSecret: SECRET,
      sessionSecretSet: true,
      siteUrl: "https://example.com",
    });
  });

  it.each([
    ["true", 1],
    ["1", 1],
    ["3", 3],
    ["false", 0],
    ["", 0],
  ])("TRUST_PROXY=%s means %i trusted proxies", (value, hops) => {
    expect(load({ TRUST_PROXY: value }).config.trustProxy).toBe(hops);
  });

  it.each([
    ["loopback", ["loopback"]],
    [" 10.0.0.0/8 , 192.168.1.1,uniquelocal", ["10.0.0.0/8", "192.168.1.1", "uniquelocal"]],
    ["fd00::/8", ["fd00::/8"]],
  ])("TRUST_PROXY=%s trusts only those proxies' addresses", (value, addresses) => {
    expect(load({ TRUST_PROXY: value }).config.trustProxy).toEqual(addresses);
  });

  it("a hop count on a server listening on every address is warned about; with HOST it is not", () => {
    const warning = /^warn \[contact\] TRUST_PROXY is a hop count and the server listens on every address/;
    expect(load({ TRUST_PROXY: "1" }).lines).toContainEqual(expect.stringMatching(warning));
    expect(load({ TRUST_PROXY: "1", HOST: "127.0.0.1" }).lines).not.toContainEqual(
      expect.stringMatching(warning),
    );
    expect(load({ TRUST_PROXY: "loopback" }).lines).not.toContainEqual(expect.stringMatching(warning));
  });

  it("a REDIS_URL left from an older version is named as no longer read, without its value", () => {
    const { lines } = load({ REDIS_URL: "redis://:redis-PASSWORD@cache:6379" });
    expect(lines).toContainEqual(
      expect.stringMatching(/^warn \[contact\] REDIS_URL is no longer read: .*Remove it\.$/),
    );
    expect(lines.join("\n")).not.toContain("redis-PASSWORD");
    expect(load({ REDIS_URL: " " }).lines.join("\n")).not.toContain("REDIS_URL");
  });

  it("an empty DATABASE_URL keeps the store in OUTBOX_DIR; postgresql:// is taken too, and then no start-up line calls the store a file", () => {
    expect(load({ DATABASE_URL: " " }).config.databaseUrl).toBeNull();
    const { config, lines } = load({ DATABASE_URL: "postgresql://portfolio:pg-PASSWORD@db/portfolio" });
    expect(config.databaseUrl).toBe("postgresql://portfolio:pg-PASSWORD@db/portfolio");
    expect(lines.join("\n")).not.toContain("DATABASE_URL is not set");
    expect(lines.join("\n")).not.toContain("pg-PASSWORD");
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
    ["CONTACT_BOT_CHECKS", "sometimes"],
    ["CONTACT_PROOF_MIN_SECONDS", "3s"],
    ["CONTACT_DAILY_SEND_LIMIT", "0"],
    ["TRUST_PROXY", "yes-please"],
    ["TRUST_PROXY", "10.0.0.0/33"],
    ["TRUST_PROXY", "loopback,,10.0.0.1"],
    ["PORT", "70000"],
    ["EMAILJS_API_URL", "ftp://SECRET.example"],
    ["SESSION_SECRET", "too-short-SECRET-value"],
    // A list entry that is no address was once taken as one.
    ["CONTACT_BLOCKLIST", "notanemail"],
    ["CONTACT_BLOCKLIST", "spam@example.com, SECRET.example.com"],
    ["CONTACT_BLOCKLIST", "@SECRET"],
    ["DATABASE_URL", "mysql://portfolio:SECRET@db/portfolio"],
    ["DATABASE_URL", "portfolio:SECRET@db"],
    ["OWNER_ALERT_URL", "ftp://SECRET.example/hook"],
    ["OWNER_ALERT_URL", "hooks-SECRET"],
    // fetch refuses a URL with credentials: every alert would fail.
    ["OWNER_ALERT_URL", "https://owner:SECRET@ntfy.example.com/alerts"],
    ["OWNER_ALERT_FORMAT", "teams"],
    ["SITE_URL", "SECRET.example.com"],
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
    expect(message.replaceAll("SESSION_SECRET", "")).not.toMatch(/SECRET/);
  });
});

describe("a refusal is the only line", () => {
  it.each([
    ["a bad blocklist entry", { CONTACT_BLOCKLIST: "notanemail" }],
    ["some EmailJS ids", { EMAILJS_PUBLIC_KEY: "pk_SECRET_1" }],
    ["a bad number", { PORT: "eighty" }],
  ])("with %s, nothing is logged before the error (no outbox, proxy or secret notice)", (_what, env) => {
    const lines: string[] = [];
    const logger = { info: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) };
    expect(() => loadConfig(env, logger)).toThrow(ConfigError);
    expect(lines).toEqual([]);
  });
});

describe("SESSION_SECRET", () => {
  it("unset: one random secret per process, the same for every configuration it builds", () => {
    const first = load({}).config.sessionSecret;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(load({ SESSION_SECRET: "" }).config.sessionSecret).toBe(first);
  });

  it("set: used as it is, without the warning", () => {
    const { config, lines } = load({ SESSION_SECRET: SECRET });
    expect(config.sessionSecret).toBe(SECRET);
    expect(lines.join("\n")).not.toContain("SESSION_SECRET");
  });
});

describe("CONTACT_BLOCKLIST", () => {
  const list = (value: string) => load({ CONTACT_BLOCKLIST: value }).config.blocklist;

  it("takes addresses and @domains, and names the position of every bad entry", () => {
    expect(list(" Spam+promo@Example.com ,, @Bad.Example ")).toEqual({
      addresses: new Set(["spam@example.com"]),
      domains: new Set(["bad.example"]),
    });
    expect(() => list("a@example.com, nope, @, b@example.com, x@y")).toThrow(
      "CONTACT_BLOCKLIST: entries 2, 3, 5 of the comma-separated list are neither an address (name@example.com) nor a domain (@example.com)",
    );
  });

  // "+tag" variants and letter case once got through.
  it.each([
    ["spam@example.com", "spam@example.com"],
    ["spam@example.com", "SPAM@Example.COM"],
    ["spam@example.com", "spam+anything@example.com"],
    ["Spam+old@example.com", "spam+new@EXAMPLE.com"],
    ["@example.net", "anyone@example.net"],
    ["@example.net", "Anyone+x@Mail.Example.NET"],
  ])("the entry %s refuses %s", (entry, email) => {
    expect(isBlocked(list(entry), email)).toBe(true);
  });

  it.each([
    ["spam@example.com", "spammer@example.com"],
    ["spam@example.com", "spam@example.com.evil"],
    ["@example.net", "someone@notexample.net"],
    ["@mail.example.net", "someone@example.net"],
  ])("the entry %s lets %s through", (entry, email) => {
    expect(isBlocked(list(entry), email)).toBe(false);
  });
});

describe("OWNER_ALERT_URL and OWNER_ALERT_FORMAT", () => {
  const alerts = (env: Record<string, string>) => load(env).config.alerts;

  it("unset or empty: no alerts, whatever the format says", () => {
    expect(alerts({})).toBeNull();
    expect(alerts({ OWNER_ALERT_URL: " ", OWNER_ALERT_FORMAT: "ntfy" })).toBeNull();
  });

  it.each([
    ["https://ntfy.sh/owner-alerts-x7", "ntfy"],
    ["https://hooks.slack.com/services/T0/B0/xyz", "slack"],
    ["https://discord.com/api/webhooks/123/abc", "discord"],
    ["https://alerts.example.com/hook?token=abc", "json"],
  ])("%s is sent as %s, read from the URL", (url, format) => {
    expect(alerts({ OWNER_ALERT_URL: url })).toEqual({ url, format });
  });

  it("the setting wins over the URL, in any letter case (a self-hosted ntfy)", () => {
    expect(
      alerts({ OWNER_ALERT_URL: "https://ntfy.example.com/alerts", OWNER_ALERT_FORMAT: " Ntfy " }),
    ).toEqual({
      url: "https://ntfy.example.com/alerts",
      format: "ntfy",
    });
  });

  it("is read silently", () => {
    const { lines } = load({
      OWNER_ALERT_URL: "https://ntfy.sh/owner-alerts-x7",
      SESSION_SECRET: SECRET,
      TRUST_PROXY: "loopback",
    });
    expect(lines).toEqual([
      expect.stringMatching(/^info \[contact\] No EmailJS ids set/),
      expect.stringMatching(/^info \[contact\] DATABASE_URL is not set/),
    ]);
  });
});
