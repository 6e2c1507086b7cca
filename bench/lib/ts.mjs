// Runs the project's TypeScript test helpers (tests/support) from
// plain Node, through vite-node (shipped with vitest): no tsx, no build step.
import { fileURLToPath } from "node:url";
import { createServer } from "vite";
import { ViteNodeRunner } from "vite-node/client";
import { ViteNodeServer } from "vite-node/server";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Imports each TypeScript file (paths relative to the repository root); `close` frees the transformer. */
export async function importTs(...files) {
  // configFile: false keeps the Remix and Tailwind plugins out: these are plain Node modules.
  const server = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: "error",
    server: { hmr: false, watch: null, middlewareMode: true },
    optimizeDeps: { noDiscovery: true, include: [] },
    resolve: { alias: { "~": `${ROOT}app` } },
  });
  await server.pluginContainer.buildStart({});
  const node = new ViteNodeServer(server);
  const runner = new ViteNodeRunner({
    root: server.config.root,
    base: server.config.base,
    fetchModule: (id) => node.fetchModule(id),
    resolveId: (id, importer) => node.resolveId(id, importer),
  });
  const modules = [];
  for (const file of files) modules.push(await runner.executeFile(`${ROOT}${file}`));
  return { modules, close: () => server.close() };
}
