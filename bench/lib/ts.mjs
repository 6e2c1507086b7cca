// Runs the project's TypeScript test helpers (tests/support) from plain Node,
// through Vite's own SSR module loader: no tsx, no build step.
import { fileURLToPath } from "node:url";
import { createServer } from "vite";

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
  const modules = [];
  for (const file of files) modules.push(await server.ssrLoadModule(`${ROOT}${file}`));
  return { modules, close: () => server.close() };
}
