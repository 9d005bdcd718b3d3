/**
 * Google reCAPTCHA v3: loads `api.js?render=<siteKey>` once and asks it for a token. The
 * whole load-and-execute must finish within `timeoutMs`, else the caller falls back.
 */
export function executeRecaptcha(
  siteKey: string,
  action: string,
  timeoutMs: number,
): Promise<string> {
  return withTimeout(
    (async () => {
      const grecaptcha = await loadRecaptcha(siteKey);
      await new Promise<void>((resolve) => grecaptcha.ready(resolve));
      const token = await grecaptcha.execute(siteKey, { action });
      if (typeof token !== 'string' || token === '') throw new Error('reCAPTCHA gave no token.');
      return token;
    })(),
    timeoutMs,
  );
}

type Grecaptcha = {
  ready: (callback: () => void) => void;
  execute: (siteKey: string, options: { action: string }) => Promise<string>;
};

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

const SCRIPT_ID = 'tp-recaptcha-script';
let loading: Promise<Grecaptcha> | null = null;

function loadRecaptcha(siteKey: string): Promise<Grecaptcha> {
  if (window.grecaptcha) return Promise.resolve(window.grecaptcha);
  if (loading) return loading;
  const pending = new Promise<Grecaptcha>((resolve, reject) => {
    const script = document.createElement('script');
    script.id = SCRIPT_ID;
    script.async = true;
    script.src = `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(siteKey)}`;
    script.addEventListener('load', () =>
      window.grecaptcha ? resolve(window.grecaptcha) : reject(new Error('reCAPTCHA missing')),
    );
    script.addEventListener('error', () => reject(new Error('reCAPTCHA failed to load')));
    document.head.appendChild(script);
  });
  loading = pending;
  // A failed load may be retried by the next submit; a slow one keeps loading meanwhile.
  pending.catch(() => {
    if (loading === pending) loading = null;
    document.getElementById(SCRIPT_ID)?.remove();
  });
  return pending;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('reCAPTCHA timed out')), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** For tests: forget the loaded script. */
export function resetRecaptcha(): void {
  loading = null;
  document.getElementById(SCRIPT_ID)?.remove();
}
