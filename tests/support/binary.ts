import { execFileSync } from "node:child_process";

/**
 * The path of a system binary the tests start (caddy, varnishd, initdb). Missing
 * one fails the test with what to install: such a test is never skipped.
 */
export function requireBinary(name: string, debianPackage = name): string {
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      `${name} is not installed: run \`apt-get install -y ${debianPackage}\` (bash .ci/run installs it).`,
    );
  }
}
