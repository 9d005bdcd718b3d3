/**
 * Sends the browser to the provider's consent screen. A full page load, not a router
 * navigation: the provider is another site and redirects back to a callback page.
 */
export function leaveForProvider(authorizeUrl: string): void {
  window.location.assign(authorizeUrl);
}
