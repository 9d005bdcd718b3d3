import { CONSENT_FIELDS } from './authorize-page';

/**
 * Drives a simulator's consent page over HTTP the way a browser would: GET the authorize
 * URL, read the form, pick the account (radio or drop-down), tick or untick scopes, then
 * submit it with the Allow or Deny button. Used by tests, scripts and demo mode (through
 * simulators/embedded.ts); it understands only the page renderConsentPage() produces.
 */

export interface ConsentChoice {
  /** Simulated account id; default: the preselected one. */
  account?: string;
  /** Default 'allow'. */
  decision?: 'allow' | 'deny';
  /** Scopes to untick (partial consent). */
  uncheckScopes?: string[];
}

export interface ConsentResult {
  /** Where the provider redirected the browser (code/state or error). */
  redirect: URL;
  /** The consent page HTML as served. */
  page: string;
}

/** Submits the consent form; throws when the page or the redirect is not what a browser expects. */
export async function submitConsent(
  authorizeUrl: string | URL,
  choice: ConsentChoice = {},
): Promise<ConsentResult> {
  const pageResponse = await fetch(authorizeUrl, { redirect: 'manual' });
  const page = await pageResponse.text();
  if (pageResponse.status !== 200) {
    throw new Error(`Consent page answered ${pageResponse.status}: ${page.slice(0, 300)}`);
  }
  const form = readConsentForm(page);
  if (choice.account !== undefined && !form.accounts.includes(choice.account)) {
    throw new Error(`The consent page does not offer the account ${choice.account}`);
  }
  const body = new URLSearchParams(form.hidden);
  const account = choice.account ?? form.selectedAccount;
  if (account !== undefined) body.append(CONSENT_FIELDS.account, account);
  for (const scope of form.scopes) {
    if (!choice.uncheckScopes?.includes(scope)) body.append(CONSENT_FIELDS.scope, scope);
  }
  body.append(
    CONSENT_FIELDS.decision,
    choice.decision === 'deny' ? CONSENT_FIELDS.deny : CONSENT_FIELDS.allow,
  );
  const response = await fetch(new URL(form.action, authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) {
    throw new Error(
      `Consent form answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
    );
  }
  return { redirect: new URL(location), page };
}

/** The parts of a consent page a browser would submit. */
export function readConsentForm(page: string): {
  action: string;
  hidden: Record<string, string>;
  accounts: string[];
  selectedAccount: string | undefined;
  scopes: string[];
} {
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error('No consent form on the page');
  const hidden: Record<string, string> = {};
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    hidden[decode(match[1] ?? '')] = decode(match[2] ?? '');
  }
  const accounts: string[] = [];
  let selectedAccount: string | undefined;
  for (const match of page.matchAll(
    /<input type="radio" name="account" value="([^"]+)"( checked)?>|<option value="([^"]+)"( selected)?>/g,
  )) {
    const value = decode(match[1] ?? match[3] ?? '');
    accounts.push(value);
    if (match[2] ?? match[4]) selectedAccount = value;
  }
  const scopes = [...page.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"/g)].map(
    (m) => decode(m[1] ?? ''),
  );
  return { action: decode(action), hidden, accounts, selectedAccount, scopes };
}

function decode(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}
