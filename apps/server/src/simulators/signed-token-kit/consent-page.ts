/**
 * The small HTML consent screen every simulator shows at its authorize URL: pick a
 * simulated account, then Allow or Deny. Deliberately plain so a test can drive it with a
 * GET and a form POST, exactly as a browser would.
 */
export type ConsentAccount = { id: string; label: string; description: string };

export type ConsentPageInput = {
  title: string;
  /** Colour of the header bar, to tell the simulators apart at a glance. */
  accent: string;
  clientId: string;
  scopes: string[];
  accounts: ConsentAccount[];
  /** The form posts here with `request_id`, `account` and `decision=allow|deny`. */
  action: string;
  requestId: string;
  /** Radio buttons with descriptions, or a drop-down like Dexcom's sandbox login. */
  accountInput: 'radio' | 'select';
  note?: string;
};

export function renderConsentPage(input: ConsentPageInput): string {
  const accounts =
    input.accountInput === 'select'
      ? `<label for="account">Sandbox user</label>
      <select id="account" name="account">
${input.accounts.map((a, i) => `        <option value="${escapeHtml(a.id)}"${i === 0 ? ' selected' : ''}>${escapeHtml(a.label)}</option>`).join('\n')}
      </select>
      <ul class="hints">
${input.accounts.map((a) => `        <li><b>${escapeHtml(a.label)}</b>: ${escapeHtml(a.description)}</li>`).join('\n')}
      </ul>`
      : input.accounts
          .map(
            (
              a,
              i,
            ) => `      <label class="account"><input type="radio" name="account" value="${escapeHtml(a.id)}"${i === 0 ? ' checked' : ''}>
        <b>${escapeHtml(a.label)}</b><br><small>${escapeHtml(a.description)}</small></label>`,
          )
          .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(input.title)}</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
    header { background: ${input.accent}; color: #fff; padding: 16px 24px; font-size: 20px; }
    main { max-width: 560px; margin: 24px auto; background: #fff; padding: 24px; border-radius: 8px; }
    .account { display: block; padding: 8px; border: 1px solid #d8dbe2; border-radius: 6px; margin: 6px 0; }
    .buttons { display: flex; gap: 12px; margin-top: 20px; }
    button { padding: 10px 24px; font-size: 16px; border-radius: 6px; border: 1px solid #999; cursor: pointer; }
    button[value=allow] { background: ${input.accent}; color: #fff; border-color: ${input.accent}; }
    .hints { font-size: 13px; color: #555; }
  </style>
</head>
<body>
  <header>${escapeHtml(input.title)}</header>
  <main>
    <p>The application <b>${escapeHtml(input.clientId)}</b> asks to read:</p>
    <ul>
${input.scopes.map((s) => `      <li>${escapeHtml(s)}</li>`).join('\n')}
    </ul>
    ${input.note ? `<p><small>${escapeHtml(input.note)}</small></p>` : ''}
    <form method="post" action="${escapeHtml(input.action)}">
      <input type="hidden" name="request_id" value="${escapeHtml(input.requestId)}">
${accounts}
      <div class="buttons">
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </div>
    </form>
  </main>
</body>
</html>
`;
}

export function renderErrorPage(title: string, error: string, description: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; margin: 40px;">
  <h1>${escapeHtml(title)}</h1>
  <p>Sorry, there was an error: <b id="error">${escapeHtml(error)}</b></p>
  <p id="error_description">${escapeHtml(description)}</p>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
