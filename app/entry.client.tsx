import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";

// This module is only requested after the page's `load` event or its first
// pointer or key press (app/deferred-scripts.tsx), so hydrating now never
// competes with the first paint.
startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RemixBrowser />
    </StrictMode>,
  );
});
