import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { LIMITS } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { contactFormSchema, type ContactFormInput } from '../api/send-contact-message';

type ContactFormProps = {
  defaultValues: Pick<ContactFormInput, 'firstName' | 'lastName' | 'email'>;
  /** Resolves `true` when the message was sent, which clears the subject and message. */
  onSubmit: (input: ContactFormInput) => Promise<boolean>;
  error: string | null;
  success: string | null;
  submitting: boolean;
};

export function ContactForm({
  defaultValues,
  onSubmit,
  error,
  success,
  submitting,
}: ContactFormProps) {
  const {
    register,
    handleSubmit,
    control,
    reset,
    getValues,
    formState: { errors, isSubmitting },
  } = useForm<ContactFormInput>({
    resolver: zodResolver(contactFormSchema),
    defaultValues: { ...defaultValues, subject: '', message: '' },
  });
  const message = useWatch({ control, name: 'message' }) ?? '';

  const submit = async (input: ContactFormInput) => {
    if (await onSubmit(input)) reset({ ...getValues(), subject: '', message: '' });
  };

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Contact us"
      data-testid="contact-form"
      onSubmit={handleSubmit(submit)}
    >
      {error && (
        <Alert severity="error" data-testid="contact-error">
          {error}
        </Alert>
      )}
      {success && (
        <Alert severity="success" data-testid="contact-success">
          {success}
        </Alert>
      )}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField
          id="contact-first-name"
          label="First Name"
          autoComplete="given-name"
          fullWidth
          {...textFieldProps(register('firstName'), errors.firstName)}
        />
        <TextField
          id="contact-last-name"
          label="Last Name"
          autoComplete="family-name"
          fullWidth
          {...textFieldProps(register('lastName'), errors.lastName)}
        />
      </Stack>
      <TextField
        id="contact-email"
        label="Email"
        type="email"
        autoComplete="email"
        {...textFieldProps(register('email'), errors.email)}
      />
      <TextField
        id="contact-subject"
        label="Subject"
        {...textFieldProps(register('subject'), errors.subject)}
      />
      <TextField
        id="contact-message"
        label="Message"
        multiline
        minRows={5}
        {...textFieldProps(register('message'), errors.message)}
        error={Boolean(errors.message) || message.length > LIMITS.contactMessageMaxLength}
        helperText={
          <span style={{ display: 'flex', justifyContent: 'space-between', gap: 8 }}>
            <span>{errors.message?.message ?? ''}</span>
            <span data-testid="contact-message-counter">
              {message.length}/{LIMITS.contactMessageMaxLength}
            </span>
          </span>
        }
      />
      <SubmitButton submitting={submitting || isSubmitting} testId="contact-submit">
        Send Message
      </SubmitButton>
    </Stack>
  );
}
