// How the owner's screens look and tell time. They use only classes the public page uses too: the one
// stylesheet stays the same bytes for visitors (decision 054).

/** The owner's own button look: importing the public page's would move its code into another chunk. */
const BUTTON =
  "inline-flex items-center justify-center rounded-md font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-background disabled:opacity-60";
export const LOOK = {
  primary: `${BUTTON} h-10 px-4 text-sm bg-primary text-primary-foreground hover:bg-primary/90`,
  outline: `${BUTTON} h-10 px-3 text-sm border border-input bg-background hover:bg-accent hover:text-accent-foreground`,
};

/** UTC, to the minute, the same on the server and in the browser. */
export const when = (time: string) => `${time.slice(0, 16).replace("T", " ")} UTC`;
