/**
 * The consent screen every simulator shows on its authorize URL: pick a simulated account
 * (radio buttons, or a drop-down like Dexcom's sandbox login), untick scopes to test partial
 * consent where the provider allows it, then Allow or Deny. The form posts like a browser
 * would submit it, so tests drive it over plain HTTP (consent-driver.ts).
 */

export interface ConsentPageInput {
  providerName: string;
  /** Accent colour of the page header. */
  accent: string;
  clientId: string;
  formAction: string;
  /** Hidden inputs carried through the form (e.g. the pending request id). */
  hiddenFields: Record<string, string>;
  accounts: Array<{ id: string; label: string; detail: string }>;
  scopes: Array<{ value: string; label: string }>;
  /** Account preselected (e.g. from login_hint); default the first one. */
  selectedAccountId?: string;
  /** Radio buttons with details (default), or a drop-down with the details listed below it. */
  accountInput?: 'radio' | 'select';
  /** The drop-down's label (default "Account"). */
  accountLabel?: string;
  /** False: scopes are listed, not offered as checkboxes (no partial consent). Default true. */
  partialConsent?: boolean;
  /** A line of small print under the form's heading. */
  note?: string;
}

/** Field names of the consent form, shared with tests and README. */
export const CONSENT_FIELDS = {
  account: 'account',
  scope: 'scope',
  decision: 'decision',
  allow: 'allow',
  deny: 'deny',
} as const;

export function renderConsentPage(input: ConsentPageInput): string {
  const selected = input.selectedAccountId ?? input.accounts[0]?.id;
  const hidden = Object.entries(input.hiddenFields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('\n      ');
  const accounts =
    input.accountInput === 'select'
      ? `<label for="${CONSENT_FIELDS.account}">${escapeHtml(input.accountLabel ?? 'Account')}</label>
      <select id="${CONSENT_FIELDS.account}" name="${CONSENT_FIELDS.account}">
        ${input.accounts.map((account) => `<option value="${escapeHtml(account.id)}"${account.id === selected ? ' selected' : ''}>${escapeHtml(account.label)}</option>`).join('\n        ')}
      </select>
      <ul class="hints">
        ${input.accounts.map((account) => `<li><strong>${escapeHtml(account.label)}</strong>: ${escapeHtml(account.detail)}</li>`).join('\n        ')}
      </ul>`
      : input.accounts
          .map(
            (account) => `<label class="option">
        <input type="radio" name="${CONSENT_FIELDS.account}" value="${escapeHtml(account.id)}"${account.id === selected ? ' checked' : ''}>
        <span><strong>${escapeHtml(account.label)}</strong><br><small>${escapeHtml(account.detail)}</small></span>
      </label>`,
          )
          .join('\n      ');
  const scopes =
    input.partialConsent === false
      ? `<ul>
        ${input.scopes.map((scope) => `<li>${escapeHtml(scope.label)}</li>`).join('\n        ')}
      </ul>`
      : input.scopes
          .map(
            (scope) => `<label class="option">
        <input type="checkbox" name="${CONSENT_FIELDS.scope}" value="${escapeHtml(scope.value)}" checked>
        <span>${escapeHtml(scope.label)}</span>
      </label>`,
          )
          .join('\n      ');
  return page(
    `${input.providerName} — Sign in (simulator)`,
    input.accent,
    `<h1>${escapeHtml(input.providerName)} <small>simulator</small></h1>
    <p>The application <code>${escapeHtml(input.clientId)}</code> wants to access your data.</p>
    ${input.note ? `<p><small>${escapeHtml(input.note)}</small></p>` : ''}
    <form method="post" action="${escapeHtml(input.formAction)}">
      ${hidden}
      <fieldset><legend>Choose a simulated account</legend>
      ${accounts}
      </fieldset>
      <fieldset><legend>Allow access to</legend>
      ${scopes}
      </fieldset>
      <div class="buttons">
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="${CONSENT_FIELDS.deny}" class="deny">Deny</button>
        <button type="submit" name="${CONSENT_FIELDS.decision}" value="${CONSENT_FIELDS.allow}" class="allow">Allow</button>
      </div>
    </form>`,
  );
}

/** An error page the provider shows instead of redirecting (bad client, bad redirect URI). */
export function renderErrorPage(
  providerName: string,
  accent: string,
  title: string,
  message: string,
): string {
  return page(
    `${providerName} — ${title}`,
    accent,
    `<h1>${escapeHtml(providerName)} <small>simulator</small></h1>
    <h2>${escapeHtml(title)}</h2>
    <p>${escapeHtml(message)}</p>`,
  );
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function page(title: string, accent: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 2rem auto; padding: 0 1rem; color: #202124; }
    h1 { color: ${accent}; font-size: 1.5rem; } h1 small { color: #5f6368; font-size: 0.9rem; font-weight: normal; }
    fieldset { border: 1px solid #dadce0; border-radius: 8px; margin: 1rem 0; }
    .hints { font-size: 0.85rem; color: #5f6368; }
    .option { display: flex; gap: 0.6rem; align-items: flex-start; padding: 0.35rem 0; }
    .buttons { display: flex; justify-content: flex-end; gap: 0.75rem; }
    button { font-size: 1rem; padding: 0.5rem 1.25rem; border-radius: 6px; border: 1px solid #dadce0; cursor: pointer; }
    .allow { background: ${accent}; color: #fff; border-color: ${accent}; } .deny { background: #fff; }
  </style>
</head>
<body>
  ${body}
</body>
</html>
`;
}
