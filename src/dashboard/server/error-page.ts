// The page a browser sees when a sign-in cannot go ahead: what went wrong, in words, and a link
// back to the dashboard's sign-in. Plain HTML with no script and no outside resource.
import type { Context } from "koa";

export interface AuthErrorPage {
  /** 400 (a bad, used or expired link or assertion), 401 (refused identity) or 403 (disabled user). */
  status: 400 | 401 | 403;
  /** Short heading, e.g. "This sign-in link has expired". */
  title: string;
  /** What happened and what to do next. */
  message: string;
  /** A stable machine-readable reason (link-expired, state-mismatch, …), in a data attribute for tests. */
  reason?: string;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

/** The frame of every sign-in page: plain HTML, no script, no outside resource. */
function pageHtml(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} · Course and Equivalency Repository</title>
  <style>
    body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #f6f7f9; margin: 0; }
    main { max-width: 36rem; margin: 10vh auto; background: #fff; padding: 2rem; border-radius: 8px;
           border: 1px solid #d0d4da; }
    h1 { font-size: 1.4rem; margin-top: 0; }
    a { color: #0b57d0; }
    .status { color: #555; font-size: 0.875rem; }
  </style>
</head>
<body>
  ${main}
</body>
</html>
`;
}

export function authErrorHtml(page: AuthErrorPage): string {
  const reason = page.reason ? ` data-reason="${escapeHtml(page.reason)}"` : "";
  return pageHtml(
    page.title,
    `<main id="auth-error"${reason}>
    <h1>${escapeHtml(page.title)}</h1>
    <p>${escapeHtml(page.message)}</p>
    <p><a href="/dashboard/">Back to sign-in</a></p>
    <p class="status">Error ${page.status}</p>
  </main>`,
  );
}

/** Answers the request with the refusal page (never cached, never framed). */
export function renderAuthError(ctx: Context, page: AuthErrorPage): void {
  ctx.status = page.status;
  renderAuthPage(ctx, authErrorHtml(page));
}

/**
 * The page a one-time sign-in link opens: a button that posts the token back. Opening the link
 * (a mail scanner following it, a link preview) uses nothing; only the person's click signs in.
 */
export function signInConfirmationHtml(token: string, email: string): string {
  return pageHtml(
    "Sign in",
    `<main id="sign-in-link">
    <h1>Sign in</h1>
    <p>Sign in to the Course and Equivalency Repository as ${escapeHtml(email)}.</p>
    <form method="post" action="/dashboard/auth/link">
      <input type="hidden" name="token" value="${escapeHtml(token)}">
      <button type="submit">Sign in</button>
    </form>
  </main>`,
  );
}

/** Any page of the sign-in routes: HTML, never cached, never framed, no script, forms only to this origin. */
export function renderAuthPage(ctx: Context, html: string): void {
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Cache-Control", "no-store");
  ctx.set(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  );
  ctx.set("X-Content-Type-Options", "nosniff");
  // The link's token is in this page's URL: it is not sent to any other origin. (Not no-referrer:
  // a browser then sends its form posts with Origin: null, which the link's post refuses.)
  ctx.set("Referrer-Policy", "same-origin");
  ctx.body = html;
}
