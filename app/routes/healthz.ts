/** Liveness for tests, deploys and the container's HEALTHCHECK. */
export function loader() {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}
