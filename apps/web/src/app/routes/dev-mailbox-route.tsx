import { SimpleLayout } from '@/components/layouts/simple-layout';
import { FullPageLoader } from '@/components/ui/full-page-loader';
import { DevMailboxPage } from '@/features/dev-mailbox/pages/dev-mailbox-page';
import { useDevMailboxAvailable } from '@/lib/dev-mailbox';
import { NotFoundPage } from './not-found';

/**
 * /DevMailbox is not in the spec's route table: it exists only while the server runs in
 * demo mode (the mailbox answers 200); otherwise the address is an ordinary 404.
 */
export function DevMailboxRoute() {
  const available = useDevMailboxAvailable();
  if (available === undefined) return <FullPageLoader label="Loading mailbox" />;
  return <SimpleLayout>{available ? <DevMailboxPage /> : <NotFoundPage />}</SimpleLayout>;
}
