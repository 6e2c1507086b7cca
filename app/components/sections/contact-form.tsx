import { useFetcher } from "@remix-run/react";
import { lazy, Suspense, useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { buttonClass } from "~/components/ui/button";
import type { ToastItem } from "~/components/ui/toast";
import {
  type contactClientAction,
  type validateContact,
  CONFIRM_TEXT,
  FIELD_BOUNDS,
  CONFIRMATION_FIELD,
  HONEYPOT_FIELD,
  loadProofSolver,
  loadSchema,
  OUTCOME_ID,
  PROOF_FIELD,
  outcomeText,
  type ContactField,
  type ContactOutcome,
  type FieldErrors,
} from "~/contact";
import { cn } from "~/lib/cn";

const fieldClass =
  "block w-full rounded-md border border-input bg-background px-3 py-2 text-sm placeholder:text-muted-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-[invalid=true]:border-destructive";

// Loaded with the first submission, not with the page (decision 005).
const loadToaster = () => import("~/components/ui/toast");
const Toaster = lazy(loadToaster);
const solveProof = () =>
  loadProofSolver()
    .then((proof) => proof.solveContactChallenge())
    .catch(() => null);
type Proof = { pending: Promise<string | null>; value?: string | null };
const PROOF_WAIT_MS = 5_000;

/** Posts to the index action: with JS by a fetcher (toasts), without as a plain form (outcome inline). */
export function ContactForm({ serverOutcome }: { serverOutcome: ContactOutcome | null }) {
  const fetcher = useFetcher<typeof contactClientAction>();
  const formRef = useRef<HTMLFormElement>(null);
  const serverFailure = serverOutcome?.ok === false ? serverOutcome : undefined;
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>(serverFailure?.fieldErrors ?? {});
  const [toasts, setToasts] = useState<ToastItem[]>([]);
  const validate = useRef<typeof validateContact>();
  const proof = useRef<Proof | null>(null);
  const proofInput = useRef<HTMLInputElement>(null);
  const [preparing, setPreparing] = useState(false);
  const busy = preparing || fetcher.state !== "idle";
  const latest = fetcher.data ?? serverOutcome;
  const confirmation =
    latest?.ok === false && latest.reason === "unconfirmed" ? latest.confirmation : undefined;

  function startProof() {
    if (proof.current) return;
    const started: Proof = { pending: solveProof() };
    void started.pending.then((value) => (started.value = value));
    proof.current = started;
  }

  useEffect(() => {
    const outcome = fetcher.data;
    if (!outcome) return;
    if (!outcome.ok && outcome.reason === "unconfirmed") {
      // A proof sent too early is not used up; a missing one is asked anew.
      if (proof.current?.value === null) proof.current = null;
      return;
    }
    proof.current = null;
    if (outcome.ok) {
      // Emptied, not reset: reset() would bring back text a failed plain post rendered.
      for (const element of formRef.current?.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
        "input, textarea",
      ) ?? []) {
        element.value = "";
      }
      setFieldErrors({});
    } else {
      console.error(`Contact form: message not sent (status ${outcome.status}, ${outcome.reason})`);
      setFieldErrors(outcome.fieldErrors ?? {});
    }
    const variant = outcome.ok ? "default" : "destructive";
    setToasts((current) => [...current, { id: Date.now(), variant, ...outcomeText(outcome) }]);
  }, [fetcher.data]);

  // Catches what the browser's own checks let through (a message of spaces, say) before anything is sent.
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    void loadToaster(); // ready by the time the answer comes
    const form = event.currentTarget;
    const result = validate.current?.(Object.fromEntries(new FormData(form)));
    if (result && !result.ok) {
      event.preventDefault();
      setFieldErrors(result.fieldErrors);
      const first = Object.keys(result.fieldErrors)[0];
      form.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return;
    }
    setFieldErrors({});
    startProof();
    const current = proof.current!;
    if (current.value !== undefined) {
      proofInput.current!.value = current.value ?? "";
      return;
    }
    event.preventDefault();
    setPreparing(true);
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), PROOF_WAIT_MS));
    void Promise.race([current.pending, timeout]).then((value) => {
      proofInput.current!.value = value ?? "";
      setPreparing(false);
      fetcher.submit(form);
    });
  }

  function clearError(field: string) {
    if (!(field in fieldErrors)) return;
    setFieldErrors((current) => {
      const next = { ...current };
      delete next[field as ContactField];
      return next;
    });
  }

  const fields = serverFailure?.fields;
  const field = (name: ContactField) => ({
    id: `contact-${name}`,
    name,
    required: true,
    maxLength: FIELD_BOUNDS[name],
    defaultValue: fields?.[name],
    "aria-invalid": fieldErrors[name] ? true : undefined,
    "aria-describedby": fieldErrors[name] ? `contact-${name}-error` : undefined,
    className: fieldClass,
  });

  return (
    <>
      <fetcher.Form
        ref={formRef}
        method="post"
        action={`/?index#${OUTCOME_ID}`}
        onSubmit={onSubmit}
        onFocus={() => {
          if (!validate.current)
            void loadSchema().then((schema) => (validate.current = schema.validateContact));
          startProof();
        }}
        onInput={(event) => clearError((event.target as HTMLInputElement).name)}
        className="space-y-5"
      >
        {confirmation ? <ConfirmNotice /> : fetcher.data ? null : <InlineOutcome outcome={serverOutcome} />}
        <div className="grid gap-5 sm:grid-cols-2">
          <Field label="Name" name="name" error={fieldErrors.name}>
            <input {...field("name")} type="text" autoComplete="name" />
          </Field>
          <Field label="Email" name="email" error={fieldErrors.email}>
            <input {...field("email")} type="email" autoComplete="email" />
          </Field>
        </div>
        <Field label="Subject" name="subject" error={fieldErrors.subject}>
          <input {...field("subject")} type="text" />
        </Field>
        <Field label="Message" name="message" error={fieldErrors.message}>
          <textarea {...field("message")} rows={5} />
        </Field>
        <div aria-hidden="true" className="sr-only">
          <label htmlFor="contact-website">Website</label>
          <input id="contact-website" name={HONEYPOT_FIELD} type="text" tabIndex={-1} autoComplete="off" />
        </div>
        <input ref={proofInput} type="hidden" name={PROOF_FIELD} defaultValue="" />
        {confirmation ? <input type="hidden" name={CONFIRMATION_FIELD} value={confirmation} /> : null}
        <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
          <button type="submit" disabled={busy} className={buttonClass("primary", "md", "w-full sm:w-auto")}>
            {busy ? "Sending..." : "Send Message"}
          </button>
        </div>
      </fetcher.Form>
      {toasts.length > 0 ? (
        <Suspense fallback={null}>
          <Toaster
            toasts={toasts}
            onDismiss={(id) => setToasts((current) => current.filter((toast) => toast.id !== id))}
          />
        </Suspense>
      ) : null}
    </>
  );
}

function Field({
  label,
  name,
  error,
  children,
}: {
  label: string;
  name: ContactField;
  error?: string;
  children: ReactNode;
}) {
  return (
    <div className="space-y-2">
      <label htmlFor={`contact-${name}`} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {error ? (
        <p id={`contact-${name}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function Notice({
  role,
  className,
  children,
}: {
  role: "status" | "alert";
  className: string;
  children: ReactNode;
}) {
  return (
    <div
      id={OUTCOME_ID}
      tabIndex={-1}
      role={role}
      className={cn("scroll-mt-24 rounded-md border p-4 text-sm", className)}
    >
      {children}
    </div>
  );
}

/** Asks for a second press when the first carried no proof (decision 029). */
function ConfirmNotice() {
  return (
    <Notice role="status" className="border-primary/40 bg-primary/10">
      <p className="font-semibold">{CONFIRM_TEXT.title}</p>
      <p className="mt-1 text-foreground">{CONFIRM_TEXT.description}</p>
    </Notice>
  );
}

function InlineOutcome({ outcome }: { outcome: ContactOutcome | null }) {
  if (!outcome) return null;
  const { title, description, detail } = outcomeText(outcome);
  return (
    <Notice
      role={outcome.ok ? "status" : "alert"}
      className={outcome.ok ? "border-success/40 bg-success/10" : "border-destructive/50 bg-destructive/10"}
    >
      <p className={cn("font-semibold", outcome.ok ? "text-success" : "text-destructive")}>{title}</p>
      <p className="mt-1 text-foreground">{description}</p>
      {detail ? <p className="mt-1 text-foreground">{detail}</p> : null}
    </Notice>
  );
}
