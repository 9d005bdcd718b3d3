/** A browser over real HTTP: cookies kept, CSRF token (bound to the session) refetched after sign-in. */
export class HttpClient {
  private cookies = new Map<string, string>();
  private csrf: string | undefined;
  constructor(readonly baseUrl: string) {}
  private keep(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  private cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  async get(url: string) {
    const response = await fetch(this.baseUrl + url, {
      headers: { cookie: this.cookieHeader() },
      signal: AbortSignal.timeout(60_000),
    });
    this.keep(response);
    return response;
  }
  async post(url: string, body: unknown) {
    if (!this.csrf) {
      const answer = await this.get('/api/csrf-token');
      if (answer.status !== 200) return answer;
      this.csrf = ((await answer.json()) as { csrfToken: string }).csrfToken;
    }
    const response = await fetch(this.baseUrl + url, {
      method: 'POST',
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/json',
        'x-csrf-token': this.csrf!,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    this.keep(response);
    return response;
  }
  forgetCsrf() {
    this.csrf = undefined;
  }
  sessionId() {
    const token = this.cookies.get('tp_access')!;
    return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
  }
}

/** The spec's error body: exactly these keys. */
