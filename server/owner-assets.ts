// The owner's page's own scripts (the chunks only its routes load) are never kept by a cache (decision 054).
import type { ServerBuild } from "@remix-run/node";

const OWNER_ROUTE = /^routes\/owner(?:_)?(?:\.|$)/;

/** The URL paths of the chunks the owner's routes load and no other route nor the entry does. */
export function ownerOnlyAssets({ assets }: ServerBuild): Set<string> {
  const files = (route: { module: string; imports?: string[] }) => [route.module, ...(route.imports ?? [])];
  const elsewhere = new Set(files(assets.entry));
  const owner = new Set<string>();
  for (const [id, route] of Object.entries(assets.routes))
    for (const file of files(route)) (OWNER_ROUTE.test(id) ? owner : elsewhere).add(file);
  return new Set([...owner].filter((file) => !elsewhere.has(file)));
}
