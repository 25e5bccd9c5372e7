// Sign-in: the email's domain selects the organization's identity provider; without one, only
// a one-time link (from `npm run cli -- users invite …` or an admin's invitation) signs in.
import { useState } from "preact/hooks";
import { DashboardError, startSignIn } from "../session.ts";
import { PageTitle } from "../ui.tsx";

export function SignIn() {
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; noConnection: boolean } | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      location.assign(await startSignIn(email.trim()));
    } catch (error) {
      const noConnection = error instanceof DashboardError && error.status === 404;
      setMessage({
        text:
          error instanceof Error
            ? error.message
            : "Sign-in could not start. Try again, or ask an administrator for a sign-in link.",
        noConnection,
      });
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <PageTitle>Sign in to the dashboard</PageTitle>
      <p>Enter your work email address. We send you to your institution's sign-in page.</p>
      <form onSubmit={submit}>
        <label for="email">Email address</label>
        <input
          id="email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Continuing…" : "Continue"}
        </button>
      </form>
      {message && (
        <div class={message.noConnection ? "notice" : "error"} role="alert">
          <p>{message.text}</p>
          {message.noConnection && (
            <p>
              Your organization has no single sign-on connection for this address. An administrator can send you a
              one-time sign-in link.
            </p>
          )}
        </div>
      )}
    </main>
  );
}
