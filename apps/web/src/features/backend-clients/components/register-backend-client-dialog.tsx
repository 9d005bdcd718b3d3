import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import TextField from '@mui/material/TextField';
import { BACKEND_SCOPES } from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { textFieldProps } from '@/components/form/text-field-props';
import { FormDialog } from '@/components/ui/form-dialog';
import { isApiError, userMessage } from '@/lib/api-client';
import {
  registerBackendClientInputSchema,
  useRegisterBackendClient,
  type RegisterBackendClientAnswer,
  type RegisterBackendClientInput,
  type RegisterBackendClientValues,
} from '../api/register-backend-client';

const SCOPE_LABELS: Record<(typeof BACKEND_SCOPES)[number], string> = {
  'system/*.rs': 'All resources',
  'system/Observation.rs': 'Observations (readings)',
  'system/Patient.rs': 'Patients (participants)',
  'system/Group.rs': 'Groups (trials)',
  'system/Device.rs': 'Devices',
};
const FIELDS = ['name', 'publicKey', 'scopes'] as const;

/**
 * Register Client: a name, the client's public key (a JWKS or a PEM public key; the private
 * key never leaves the pipeline) and the scopes it may ask. The shared schema's messages show
 * under the fields; a key the server cannot use comes back as the key field's message.
 */
export function RegisterBackendClientDialog({
  onRegistered,
  onClose,
}: {
  onRegistered: (answer: RegisterBackendClientAnswer) => void;
  onClose: () => void;
}) {
  const register = useRegisterBackendClient();
  const [error, setError] = useState<string | null>(null);
  const {
    register: field,
    handleSubmit,
    control,
    setError: setFieldError,
    formState: { errors },
  } = useForm<RegisterBackendClientInput, unknown, RegisterBackendClientValues>({
    resolver: zodResolver(registerBackendClientInputSchema),
    defaultValues: { name: '', publicKey: '', scopes: [] },
  });

  const submit = async (input: RegisterBackendClientValues) => {
    setError(null);
    try {
      onRegistered(await register.mutateAsync(input));
    } catch (failure) {
      const fieldErrors = isApiError(failure) ? (failure.body?.errors ?? []) : [];
      const known = fieldErrors.filter((e) =>
        (FIELDS as readonly string[]).includes(e.field.split('.')[0]!),
      );
      for (const e of known)
        setFieldError(e.field.split('.')[0] as (typeof FIELDS)[number], { message: e.message });
      if (known.length === 0) setError(userMessage(failure, 'Registering the client failed.'));
    }
  };

  return (
    <FormDialog
      title="Register Client"
      onSubmit={handleSubmit(submit)}
      onClose={onClose}
      submitting={register.isPending}
      submitLabel="Register"
      error={error}
      maxWidth="md"
      testId="register-backend-client"
    >
      <TextField
        id="backend-client-name"
        label="Name"
        autoFocus
        autoComplete="off"
        {...textFieldProps(field('name'), errors.name)}
      />
      <TextField
        id="backend-client-key"
        label="Public key (JWKS or PEM)"
        multiline
        minRows={6}
        maxRows={14}
        fullWidth
        placeholder={'{"keys":[{"kty":"EC","crv":"P-384",…}]}\nor\n-----BEGIN PUBLIC KEY-----'}
        slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
        {...textFieldProps(field('publicKey'), errors.publicKey)}
        helperText={
          errors.publicKey?.message ??
          'The public half of the key the pipeline signs with (RS384: RSA 2048+, or ES384: EC P-384).'
        }
      />
      <Controller
        control={control}
        name="scopes"
        render={({ field: { value, onChange, onBlur } }) => (
          <FormControl component="fieldset" error={Boolean(errors.scopes)} variant="standard">
            <FormLabel component="legend">Allowed scopes</FormLabel>
            <FormGroup>
              {BACKEND_SCOPES.map((scope) => (
                <FormControlLabel
                  key={scope}
                  control={
                    <Checkbox
                      checked={(value ?? []).includes(scope)}
                      onBlur={onBlur}
                      onChange={(event) =>
                        onChange(
                          event.target.checked
                            ? [...(value ?? []), scope]
                            : (value ?? []).filter((s) => s !== scope),
                        )
                      }
                      data-testid={`scope-${scope}`}
                    />
                  }
                  label={`${SCOPE_LABELS[scope]} (${scope})`}
                />
              ))}
            </FormGroup>
            {errors.scopes && (
              <FormHelperText>{errors.scopes.message ?? errors.scopes[0]?.message}</FormHelperText>
            )}
          </FormControl>
        )}
      />
    </FormDialog>
  );
}
