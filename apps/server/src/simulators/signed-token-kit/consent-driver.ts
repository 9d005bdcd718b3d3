/**
 * Test support: drives a simulator's consent page over HTTP the way a browser does: GET
 * the authorize URL, read the form, POST it with the chosen account and button, and return
 * the redirect the browser would follow.
 */
export type ConsentForm = {
  action: string;
  hidden: Record<string, string>;
  /** Account values offered by radio buttons or the drop-down. */
  accounts: string[];
};

export async function readConsentForm(
  authorizeUrl: string,
): Promise<{ status: number; html: string; form?: ConsentForm }> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await response.text();
  const action = /<form[^>]*method="post"[^>]*action="([^"]+)"/i.exec(html)?.[1];
  if (!action) return { status: response.status, html };
  const hidden: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    hidden[match[1] as string] = unescape(match[2] as string);
  }
  const accounts = [
    ...[...html.matchAll(/<input type="radio" name="account" value="([^"]+)"/g)].map((m) =>
      unescape(m[1] as string),
    ),
    ...[...html.matchAll(/<option value="([^"]+)"/g)].map((m) => unescape(m[1] as string)),
  ];
  return { status: response.status, html, form: { action: unescape(action), hidden, accounts } };
}

/** Submits the consent form; returns the Location the simulator redirects to. */
export async function submitConsent(
  authorizeUrl: string,
  account: string,
  decision: 'allow' | 'deny',
): Promise<URL> {
  const { form, html } = await readConsentForm(authorizeUrl);
  if (!form) throw new Error(`No consent form on the page:\n${html.slice(0, 500)}`);
  if (!form.accounts.includes(account)) throw new Error(`Account ${account} is not offered`);
  const response = await fetch(new URL(form.action, authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.hidden, account, decision }),
    redirect: 'manual',
  });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location)
    throw new Error(`Expected a redirect, got ${response.status}`);
  return new URL(location);
}

function unescape(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}
