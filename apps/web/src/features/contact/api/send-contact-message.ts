import { useMutation } from '@tanstack/react-query';
import { contactInputSchema, type ContactInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** What the form collects; the human-check token is added on submit. */
export const contactFormSchema = contactInputSchema.omit({ recaptchaResponse: true });
export type ContactFormInput = Omit<ContactInput, 'recaptchaResponse'>;

/** `POST /api/contactUs`: stores the message and emails the support address. */
export function sendContactMessage(input: ContactInput): Promise<unknown> {
  return api.post<unknown>('/contactUs', input);
}

export function useSendContactMessage() {
  return useMutation({ mutationFn: sendContactMessage });
}
