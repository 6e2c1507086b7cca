// The Dockerfile's essentials, checked on the real file; each rule is also
// shown to catch the mistake it is there for.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DOCKERFILE, readDockerignore } from "../support/docker/dockerfile";
import { lintDockerfile, lintDockerignore } from "../support/docker/lint";

const dockerfile = readFileSync(DOCKERFILE, "utf8");

describe("Dockerfile", () => {
  it("has the essentials: pinned LTS slim base, non-root, healthcheck, init, exec-form node, no secrets", () => {
    expect(lintDockerfile(dockerfile)).toEqual([]);
  });

  it.each([
    [
      "an unpinned base",
      (text: string) => text.replaceAll("node:24-bookworm-slim", "node:lts-slim"),
      /not node:<major>/,
    ],
    [
      "an odd (non-LTS) major",
      (text: string) => text.replaceAll("node:24-", "node:25-"),
      /not a maintained LTS/,
    ],
    ["running as root", (text: string) => text.replace(/^USER .*$/m, "USER root"), /non-root USER/],
    ["no USER", (text: string) => text.replace(/^USER .*$/m, ""), /non-root USER/],
    [
      "no HEALTHCHECK",
      (text: string) => text.replace(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, ""),
      /no HEALTHCHECK/,
    ],
    [
      "a curl healthcheck",
      (text: string) =>
        text.replace(/CMD \["node", "-e",[^\n]*/, 'CMD ["curl", "-f", "http://127.0.0.1:3000/healthz"]'),
      /does not run node/,
    ],
    [
      "a secret in ENV",
      (text: string) =>
        text.replace("ENV NODE_ENV=production", "ENV EMAILJS_PRIVATE_KEY=abc NODE_ENV=production"),
      /EMAILJS_PRIVATE_KEY looks like a secret/,
    ],
    [
      "a database URL in ENV",
      (text: string) =>
        text.replace(
          "ENV NODE_ENV=production",
          "ENV DATABASE_URL=postgres://portfolio:secret@db:5432/portfolio NODE_ENV=production",
        ),
      /DATABASE_URL looks like a secret/,
    ],
    [
      "a secret ARG",
      (text: string) => text.replace("FROM base AS runtime", "FROM base AS runtime\nARG API_TOKEN"),
      /API_TOKEN looks like a secret/,
    ],
    [
      "npm start as CMD",
      (text: string) => text.replace(/^CMD \[.*$/m, 'CMD ["npm", "start"]'),
      /does not run node directly/,
    ],
    [
      "a shell-form CMD",
      (text: string) => text.replace(/^CMD \[.*$/m, "CMD node build/server/index.js"),
      /not in exec form/,
    ],
    ["no init", (text: string) => text.replace(/^ENTRYPOINT .*$/m, ""), /no init/],
    [
      "dev dependencies in the image",
      (text: string) => text.replace("--omit=dev ", ""),
      /production dependencies only/,
    ],
    [
      "the whole context in the image",
      (text: string) => text.replace("COPY public ./public", "COPY . ."),
      /whole build context/,
    ],
    [
      "NODE_ENV not production",
      (text: string) => text.replace("NODE_ENV=production", "NODE_ENV=development"),
      /NODE_ENV/,
    ],
  ])("flags %s", (_, mutate, problem) => {
    const mutated = mutate(dockerfile);
    expect(mutated).not.toBe(dockerfile);
    expect(lintDockerfile(mutated).join("\n")).toMatch(problem);
  });
});

describe(".dockerignore", () => {
  it("keeps installed and built files, secrets, the outbox and test output out; the sources in", () => {
    expect(lintDockerignore(readDockerignore())).toEqual([]);
  });

  it("flags a missing rule", () => {
    const patterns = readDockerignore().filter(
      (pattern) => pattern !== "node_modules" && pattern !== ".env.*",
    );
    expect(lintDockerignore(patterns)).toEqual([
      "node_modules/react/index.js would be sent to the build",
      ".env.production would be sent to the build",
    ]);
  });
});
