// The part of pa11y 10's API the tests use (it ships no types; @types/pa11y describes pa11y 5).
declare module "pa11y" {
  type Issue = { type: "error" | "warning" | "notice"; code: string; selector: string; message: string };
  type Options = {
    standard?: "WCAG2A" | "WCAG2AA" | "WCAG2AAA";
    runners?: string[];
    timeout?: number;
    chromeLaunchConfig?: { executablePath?: string; args?: string[] };
    headers?: Record<string, string>;
    method?: string;
    postData?: string;
    screenCapture?: string;
  };
  export default function pa11y(
    url: string,
    options?: Options,
  ): Promise<{ documentTitle: string; issues: Issue[] }>;
}
