// The frame of every owner screen: its title, the way back to the public site and, signed in, signing out.
import type { ReactNode } from "react";
import { Action } from "./action";
import { LOOK } from "./look";

export function Shell({
  title,
  signedIn = false,
  children,
}: {
  title: string;
  signedIn?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="flex min-h-screen flex-col items-center px-4 py-8">
      <div className="flex w-full max-w-3xl flex-col gap-6">
        <header className="flex flex-wrap items-center justify-between gap-3">
          <h1 className="text-xl font-bold tracking-tight sm:text-2xl">{title}</h1>
          <div className="flex items-center gap-3">
            <a href="/" className={LOOK.outline}>
              The public site
            </a>
            {signedIn ? <Action intent="sign_out" label="Sign out" /> : null}
          </div>
        </header>
        <main id="main" className="flex flex-col gap-6">
          {children}
        </main>
      </div>
    </div>
  );
}
