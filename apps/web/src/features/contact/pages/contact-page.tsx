import { useEffect, useState } from 'react';
import { CONTACT_MESSAGES, LIMITS } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useHumanCheck } from '@/lib/human-check';
import { useSession } from '@/lib/session';
import { useSendContactMessage, type ContactFormInput } from '../api/send-contact-message';
import { ContactForm } from '../components/contact-form';

/** /ContactUsForm/: questions and account requests to the support team. */
export function ContactPage() {
  const { user } = useSession();
  const { getToken } = useHumanCheck();
  const send = useSendContactMessage();
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);

  useEffect(() => {
    if (!success) return;
    const timer = setTimeout(() => setSuccess(null), LIMITS.contactSuccessClearMs);
    return () => clearTimeout(timer);
  }, [success]);

  const handleSubmit = async (input: ContactFormInput): Promise<boolean> => {
    setError(null);
    setSuccess(null);
    let recaptchaResponse: string;
    try {
      recaptchaResponse = await getToken('contact');
    } catch {
      setError(CONTACT_MESSAGES.tokenFailed);
      return false;
    }
    try {
      await send.mutateAsync({ ...input, recaptchaResponse });
      setSuccess(CONTACT_MESSAGES.sent);
      return true;
    } catch (failure) {
      setError(userMessage(failure, CONTACT_MESSAGES.notSent));
      return false;
    }
  };

  return (
    <FormCard
      title="Contact us"
      subtitle="Questions, or an account for your research team? Send us a message and we will get back to you by email."
      testId="contact-page"
      maxWidth={600}
    >
      <ContactForm
        defaultValues={{
          firstName: user?.first_name ?? '',
          lastName: user?.last_name ?? '',
          email: user?.email ?? '',
        }}
        onSubmit={handleSubmit}
        error={error}
        success={success}
        submitting={send.isPending}
      />
    </FormCard>
  );
}
