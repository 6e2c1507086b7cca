// Vitest's global setup: one line naming the Node that runs the tests, and a
// clear stop on a Node older than the major in .nvmrc (the Docker image's).
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../..");

export default function nodeVersion() {
  // Each Vitest project runs its global setup; the line is worth printing once.
  if (process.env.TESTS_NODE_NAMED) return;
  process.env.TESTS_NODE_NAMED = "1";
  console.log(
    `Tests run on Node ${process.version} (${process.platform}-${process.arch}), ${process.execPath}`,
  );
  const wanted = Number(readFileSync(join(ROOT, ".nvmrc"), "utf8").trim());
  if (Number(process.versions.node.split(".")[0]) < wanted)
    throw new Error(
      `Node ${wanted} or newer is needed (.nvmrc), this is ${process.version}: ` +
        `\`nvm use\`, or \`bash .ci/run\`, which installs it.`,
    );
}
