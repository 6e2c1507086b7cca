// compose.yaml, the deploy recipe, without a Docker engine: the file against
// the Compose Specification's own JSON schema, the settings the deploy relies
// on, the file as `docker compose config` resolves it, and deploy/Caddyfile
// through `caddy validate` with the proxy service's environment.
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
  healthcheck?: { test?: string[] };
};
type ComposeFile = { name: string; services: Record<string, Service>; volumes: Record<string, unknown> };

const text = readFileSync(join(ROOT, "compose.yaml"), "utf8");
const compose = parse(text) as ComposeFile;
const { proxy, app, db } = compose.services as Record<"proxy" | "app" | "db", Service>;
/** Every replica's store: the database service, its user and database, the password from `.env`. */
const DATABASE_URL = /^postgres:\/\/portfolio:\$\{POSTGRES_PASSWORD:\?.+\}@db:5432\/portfolio$/;

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

  it("has the proxy, two app replicas and PostgreSQL", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["app", "db", "proxy"]);
    expect(proxy.image).toMatch(/^caddy:2(\b|$)/);
    expect(db.image).toMatch(/^postgres:(16|17)(\b|$)/);
    expect(app.build).toBe(".");
    expect(app.deploy?.replicas).toBe(2);
  });

  it("names Redis nowhere: no service, no volume, no REDIS_URL", () => {
    expect(text).not.toMatch(/redis/i);
    for (const service of Object.values(compose.services)) {
      expect(service.image ?? "").not.toMatch(/redis/i);
      expect(Object.keys(service.environment ?? {})).not.toContain("REDIS_URL");
    }
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

  it("the app trusts one proxy, keeps its store in PostgreSQL once it is up, has no volume, and a cookie key", () => {
    const env = app.environment!;
    expect(env.TRUST_PROXY).toBe("1");
    expect(env.DATABASE_URL).toMatch(DATABASE_URL);
    expect(app.depends_on?.db?.condition).toBe("service_healthy");
    // No volume of its own, so none shared by the replicas: their one shared store is the database.
    expect(app.volumes).toBeUndefined();
    expect(Object.keys(compose.volumes).sort()).toEqual(["caddy-config", "caddy-data", "db-data"]);
    // Required: Compose stops with this message when it is unset.
    expect(env.SESSION_SECRET).toMatch(/^\$\{SESSION_SECRET:\?.+\}$/);
    expect(seconds(app.stop_grace_period!)).toBeGreaterThan(APP_DRAIN_BOUND_SECONDS);
  });

  it("PostgreSQL keeps its data on a named volume, takes its password from .env, and says when it is ready", () => {
    expect(db.volumes).toEqual(["db-data:/var/lib/postgresql/data"]);
    expect(db.environment?.POSTGRES_USER).toBe("portfolio");
    expect(db.environment?.POSTGRES_DB).toBe("portfolio");
    // Required: Compose stops with this message when it is unset.
    expect(db.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(db.healthcheck?.test?.slice(0, 2)).toEqual(["CMD", "pg_isready"]);
    expect(db.ports).toBeUndefined(); // reachable from the app only
  });
});

/** What the owner sets in `.env` beside the example's values: the cookie key and the database's password. */
const SECRETS = { SESSION_SECRET: "a-long-random-value", POSTGRES_PASSWORD: "0123456789abcdef" };

/**
 * `docker compose config` in a folder with the recipe and the example .env. Compose v2 when the docker
 * client has it; else Debian 12's docker-compose 1.29, which predates the top-level `name` and takes it as -p.
 */
function composeConfig(secrets: Record<string, string> = SECRETS): {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
} {
  const project = mkdtempSync(join(tmpdir(), "portfolio-compose-config-"));
  copyFileSync(join(ROOT, ".env.example"), join(project, ".env"));
  const env = { ...process.env, ...secrets };
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
  it("resolves the recipe: no volume on the app instances, every one on the database, PostgreSQL on its own volume", () => {
    const resolved = composeConfig();
    expect(Object.keys(resolved.services).sort()).toEqual(["app", "db", "proxy"]);
    const { app: resolvedApp, db: resolvedDb } = resolved.services;
    expect(resolvedApp!.volumes).toBeUndefined();
    expect(resolvedApp!.environment?.DATABASE_URL).toBe(
      `postgres://portfolio:${SECRETS.POSTGRES_PASSWORD}@db:5432/portfolio`,
    );
    expect(resolvedDb!.environment?.POSTGRES_PASSWORD).toBe(SECRETS.POSTGRES_PASSWORD);
    expect(Object.keys(resolvedApp!.environment ?? {})).not.toContain("REDIS_URL");
    expect(Object.keys(resolved.volumes).sort()).toEqual(["caddy-config", "caddy-data", "db-data"]);
    expect(JSON.stringify(resolvedDb!.volumes)).toContain("db-data");
    expect(JSON.stringify(resolved)).not.toMatch(/redis/i);
  });

  it("refuses to resolve without the database's password", () => {
    expect(() => composeConfig({ SESSION_SECRET: SECRETS.SESSION_SECRET, POSTGRES_PASSWORD: "" })).toThrow(
      /POSTGRES_PASSWORD/,
    );
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
