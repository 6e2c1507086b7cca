// compose.yaml, the deploy recipe, without a Docker engine: the file against
// the Compose Specification's own JSON schema, the settings the deploy relies
// on, the file as `docker compose config` resolves it, and deploy/Caddyfile
// through `caddy validate` with the proxy service's environment. tests/integration/topology-caddy-redis.test.ts runs the same pieces.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../support/app-server";
import { requireBinary } from "../support/binary";
import { CADDYFILE, caddyEnv } from "../support/caddy";
import {
  NON_DOCUMENT_CSP,
  STATIC_SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
} from "~/lib/security-headers.server";

/**
 * schema/compose-spec.json of the Compose Specification project (Apache-2.0),
 * copied as is (reformatted by Prettier): no npm package ships a current one.
 */
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "tests/support/compose-spec.schema.json"), "utf8"));
/** The app server's drain bound on SIGTERM: Docker must wait longer before it kills. */
const APP_DRAIN_BOUND_SECONDS = 15;

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { replicas?: number };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
};
type ComposeFile = { name: string; services: Record<string, Service>; volumes: Record<string, unknown> };

const text = readFileSync(join(ROOT, "compose.yaml"), "utf8");
const compose = parse(text) as ComposeFile;
const { proxy, app, redis } = compose.services as Record<"proxy" | "app" | "redis", Service>;

// The schema names draft-07 by an https address Ajv does not know; its form is not in question.
const validate = new Ajv({ strict: false, allErrors: true, validateSchema: false }).compile(SCHEMA);

/** Seconds in a Compose duration ("20s", "1m30s"). */
function seconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  expect(parts.map((part) => part[0]).join("")).toBe(duration);
  return parts.reduce((total, [, value, unit]) => total + Number(value) * units[unit!]!, 0);
}

describe("compose.yaml", () => {
  it("is a valid Compose file", () => {
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it("the check would catch a broken one", () => {
    const broken = structuredClone(compose) as unknown as { services: Record<string, object> };
    broken.services.app = { ...app, stop_grace_period: ["20s"], replica: 2 };
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toEqual(
      expect.arrayContaining(["/services/app", "/services/app/stop_grace_period"]),
    );
  });

  it("has the proxy, two app replicas and Redis", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["app", "proxy", "redis"]);
    expect(proxy.image).toMatch(/^caddy:2(\b|$)/);
    expect(redis.image).toMatch(/^redis:7(\b|$)/);
    expect(app.build).toBe(".");
    expect(app.deploy?.replicas).toBe(2);
  });

  it("the proxy publishes HTTP and HTTPS, runs deploy/Caddyfile, keeps its certificates, and lists every replica", () => {
    expect(proxy.ports).toEqual(expect.arrayContaining(["80:80", "443:443"]));
    expect(proxy.volumes).toContain("./deploy/Caddyfile:/etc/caddy/Caddyfile:ro");
    expect(proxy.volumes).toContain("caddy-data:/data");
    expect(proxy.environment?.SITE_ADDRESS).toBe("${SITE_ADDRESS:-localhost}");
    // Compose names replica n of service app in project p "p-app-n".
    const replicas = Array.from(
      { length: app.deploy!.replicas! },
      (_, i) => `${compose.name}-app-${i + 1}:3000`,
    );
    expect(proxy.environment?.APP_UPSTREAMS?.split(/\s+/)).toEqual(replicas);
    expect(proxy.depends_on?.app?.condition).toBe("service_healthy");
  });

  it("the app trusts one proxy, keeps its limits and messages in Redis, shares no volume, and a cookie key", () => {
    const env = app.environment!;
    expect(env.TRUST_PROXY).toBe("1");
    expect(env.REDIS_URL).toBe("redis://redis:6379");
    expect(app.volumes).toBeUndefined();
    expect(Object.keys(compose.volumes).sort()).toEqual(["caddy-config", "caddy-data", "redis-data"]);
    // Required: Compose stops with this message when it is unset.
    expect(env.SESSION_SECRET).toMatch(/^\$\{SESSION_SECRET:\?.+\}$/);
    expect(seconds(app.stop_grace_period!)).toBeGreaterThan(APP_DRAIN_BOUND_SECONDS);
  });

  it("Redis keeps the queue in an append-only file on a volume and never evicts a key", () => {
    expect(redis.command?.join(" ")).toContain("--appendonly yes");
    expect(redis.command?.join(" ")).toContain("--maxmemory-policy noeviction");
    expect(redis.volumes).toContain("redis-data:/data");
    expect(redis.ports).toBeUndefined(); // reachable from the app only
  });
});

/**
 * `docker compose config` in a folder with the recipe and the example .env. Compose v2 when the docker
 * client has it; else Debian 12's docker-compose 1.29, which predates the top-level `name` and takes it as -p.
 */
function composeConfig(): { services: Record<string, Service>; volumes: Record<string, unknown> } {
  const project = mkdtempSync(join(tmpdir(), "portfolio-compose-config-"));
  copyFileSync(join(ROOT, ".env.example"), join(project, ".env"));
  const env = { ...process.env, SESSION_SECRET: "a-long-random-value" };
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { cwd: project, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  let v2 = true;
  try {
    run("docker", ["compose", "version"]);
  } catch {
    v2 = false;
  }
  // A failing `config` fails the test; only a missing Compose v2 falls back to 1.29.
  writeFileSync(join(project, "compose.yaml"), v2 ? text : text.replace(/^name: .*$/m, ""));
  const output = v2
    ? run("docker", ["compose", "config"])
    : run(requireBinary("docker-compose"), ["-p", compose.name, "config"]);
  return parse(output) as ReturnType<typeof composeConfig>;
}

describe("docker compose config", () => {
  it("resolves the recipe: no volume on the app instances, Redis with AOF and noeviction on its own volume", () => {
    const resolved = composeConfig();
    expect(Object.keys(resolved.services).sort()).toEqual(["app", "proxy", "redis"]);
    expect(resolved.services.app!.volumes).toBeUndefined();
    expect(resolved.services.app!.environment?.REDIS_URL).toBe("redis://redis:6379");
    expect(Object.keys(resolved.volumes).sort()).toEqual(["caddy-config", "caddy-data", "redis-data"]);
    const redisCommand = resolved.services.redis!.command!.join(" ");
    expect(redisCommand).toContain("--appendonly yes");
    expect(redisCommand).toContain("--maxmemory-policy noeviction");
    expect(JSON.stringify(resolved.services.redis!.volumes)).toContain("redis-data");
  });
});

describe("deploy/Caddyfile", () => {
  it("passes `caddy validate` with the environment compose.yaml gives the proxy", () => {
    const caddy = requireBinary("caddy");
    const home = mkdtempSync(join(tmpdir(), "portfolio-caddy-validate-"));
    const output = execFileSync(caddy, ["validate", "--config", CADDYFILE, "--adapter", "caddyfile"], {
      cwd: home,
      env: caddyEnv(home, {
        SITE_ADDRESS: "localhost",
        APP_UPSTREAMS: String(proxy.environment!.APP_UPSTREAMS),
      }),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output).toContain("Valid configuration");
  });

  it("sets the app's security header values, not copies that drift from them", () => {
    const caddyfile = readFileSync(CADDYFILE, "utf8");
    const snippet = caddyfile.slice(caddyfile.indexOf("(security_headers) {"));
    const values = (block: string) =>
      Object.fromEntries(
        [...block.matchAll(/^\s*\??([A-Z][\w-]+) "([^"]*)"$/gm)].map(([, name, value]) => [name, value]),
      );
    const [defaults, hsts] = snippet.split(/\n\theader \{/).slice(1, 3);
    expect(values(defaults!)).toEqual({
      ...STATIC_SECURITY_HEADERS,
      "Content-Security-Policy": NON_DOCUMENT_CSP,
    });
    expect(values(hsts!)).toEqual({ "Strict-Transport-Security": STRICT_TRANSPORT_SECURITY });
  });
});
