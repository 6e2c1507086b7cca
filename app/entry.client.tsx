import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  });
}

// The server-rendered page works without JavaScript: hydrate after it has
// loaded, so its first paint never waits on hydration (README, "Performance").
if (document.readyState === "complete") setTimeout(hydrate);
else window.addEventListener("load", () => setTimeout(hydrate), { once: true });
