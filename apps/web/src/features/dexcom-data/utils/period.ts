/** The period of `days` ending now, on whole minutes (so a query key stays put while a page is open). */
export function periodEndingNow(days: number): { start: Date; end: Date } {
  const end = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  return { start: new Date(end.getTime() - days * 86_400_000), end };
}
