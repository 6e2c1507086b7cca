import { buttonClass } from "~/components/ui/button";

const fieldClass =
  "block w-full rounded-md border border-input bg-background px-3 py-2 text-sm placeholder:text-muted-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring";

/** The contact form's markup; sending is wired by the contact relay. */
export function ContactForm() {
  return (
    <form method="post" className="space-y-5">
      <div className="grid gap-5 sm:grid-cols-2">
        <div className="space-y-2">
          <label htmlFor="contact-name" className="text-sm font-medium">Name</label>
          <input id="contact-name" name="name" required autoComplete="name" className={fieldClass} />
        </div>
        <div className="space-y-2">
          <label htmlFor="contact-email" className="text-sm font-medium">Email</label>
          <input id="contact-email" name="email" type="email" required autoComplete="email" className={fieldClass} />
        </div>
      </div>
      <div className="space-y-2">
        <label htmlFor="contact-subject" className="text-sm font-medium">Subject</label>
        <input id="contact-subject" name="subject" required className={fieldClass} />
      </div>
      <div className="space-y-2">
        <label htmlFor="contact-message" className="text-sm font-medium">Message</label>
        <textarea id="contact-message" name="message" rows={5} required className={fieldClass} />
      </div>
      <button type="submit" className={buttonClass("primary", "md", "w-full sm:w-auto")}>
        Send Message
      </button>
    </form>
  );
}
