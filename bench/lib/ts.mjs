// Runs the project's TypeScript test helpers (tests/support) from plain Node,
// through Vite's own SSR module loader: no tsx, no build step.
import { fileURLToPath } from "node:url";
import { createServer } from "vite";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Imports each TypeScript file (paths relative to the repository root); `close` frees the transformer. */
export const importTs = (...files) => importTsAt(ROOT, files);

/** The same in another checkout of the project (`root` ends with a slash): an earlier revision's sources. */
export async function importTsAt(root, files) {
  // configFile: false keeps the Remix and Tailwind plugins out: these are plain Node modules.
  const server = await createServer({
    root,
    configFile: false,
    logLevel: "error",
    server: { hmr: false, watch: null, middlewareMode: true },
    optimizeDeps: { noDiscovery: true, include: [] },
    resolve: { alias: { "~": `${root}app` } },
  });
  const modules = [];
  for (const file of files) modules.push(await server.ssrLoadModule(`${root}${file}`));
  return { modules, close: () => server.close() };
}
