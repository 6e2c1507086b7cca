import { buttonClass } from "~/components/ui/button";
import { ArrowRightIcon } from "~/components/ui/icons";

export function StatusPage({ code, title, detail }: { code: string; title: string; detail?: string }) {
  return (
    <main id="main" className="grid min-h-screen place-items-center px-6 py-24">
      <div className="text-center">
        <h1 className="text-7xl font-bold tracking-tight text-primary sm:text-8xl">{code}</h1>
        <p className="mt-4 text-xl font-semibold sm:text-2xl">{title}</p>
        {detail ? <p className="mt-3 text-muted-foreground">{detail}</p> : null}
        {/* A document link: the home page is rebuilt from scratch after an error. */}
        <a href="/" className={buttonClass("primary", "md", "mt-8")}>
          Return to Home <ArrowRightIcon />
        </a>
      </div>
    </main>
  );
}
