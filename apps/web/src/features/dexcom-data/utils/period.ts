/** The CGM periods end now (decision 0056); the printable report uses the same function. */
export { periodEndingNow } from '@/lib/day-range';
