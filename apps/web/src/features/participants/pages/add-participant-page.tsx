import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PARTICIPANT_MESSAGES, trialSchema, type Trial } from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { textFieldProps } from '@/components/form/text-field-props';
import { useNotify } from '@/components/notifications';
import { useCan } from '@/lib/session';
import {
  addParticipantFormSchema,
  useAddParticipant,
  type AddParticipantFormInput,
  type AddParticipantFormOutput,
} from '../api/add-participant';
import { MissingTrialCodeError, useTrialCode } from '../api/get-trial-code';
import { MissingRecord, SELECT_TRIAL_MESSAGE } from '../components/missing-record';
import { ParticipantFields, isSuffixAllowed, upperCased } from '../components/participant-fields';
import { PhiBanner } from '../components/phi-banner';
import { addParticipantErrorMessage } from '../utils/participant-errors';
import { PARTICIPANT_PATHS } from '../utils/paths';
import { useVisibleParticipantFields } from '../utils/visible-fields';

/**
 * /AddParticipantPage: adds a participant to the trial opened from /TrialPage (navigation
 * state, or local storage after a reload). The code is the trial's prefix, a dash and an
 * optional suffix (blank: the server assigns the next free one). Success goes back to the
 * trial page with a toast; every failure shows in the words of access spec §8.
 */
export function AddParticipantPage() {
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  if (!trial) return <MissingRecord message={SELECT_TRIAL_MESSAGE} testId="trial-missing" />;
  return <AddParticipant trial={trial} />;
}

function AddParticipant({ trial }: { trial: Trial }) {
  const navigate = useNavigate();
  const notify = useNotify();
  const { showEmail, showNotes } = useVisibleParticipantFields();
  const trialCode = useTrialCode(trial.trialId);
  const add = useAddParticipant();
  const [error, setError] = useState<string | null>(null);
  const canAdd = useCan('participant.create');

  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = useForm<AddParticipantFormInput, unknown, AddParticipantFormOutput>({
    resolver: zodResolver(addParticipantFormSchema),
    defaultValues: { codeSuffix: '', email: '', gender: '', age: '', notes: '' },
  });
  const suffix = useWatch({ control, name: 'codeSuffix' });
  const notes = useWatch({ control, name: 'notes' }) ?? '';
  const suffixInvalid = !isSuffixAllowed(suffix, { allowBlank: true });

  const backToTrial = () => void navigate(PARTICIPANT_PATHS.trialPage, { state: { trial } });

  const submit = async (values: AddParticipantFormOutput) => {
    setError(null);
    try {
      const answer = await add.mutateAsync({ trialId: trial.trialId, ...values });
      notify(`Participant ${answer.participant_code} has been added.`, 'success');
      backToTrial();
    } catch (failure) {
      setError(addParticipantErrorMessage(failure));
    }
  };

  return (
    <Paper
      variant="outlined"
      sx={{ p: { xs: 3, sm: 4 }, maxWidth: 720, mx: 'auto' }}
      data-testid="add-participant-page"
    >
      <Stack spacing={2}>
        <div>
          <Typography variant="h1" component="h1">
            Add Participant
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 0.5 }} data-testid="add-participant-trial">
            Trial: #{trial.trialNumber} - {trial.trialName}
          </Typography>
        </div>
        <PhiBanner />
        {!canAdd ? (
          <Alert severity="info" data-testid="add-participant-not-allowed">
            Your role cannot add participants.
          </Alert>
        ) : (
          <Stack component="form" noValidate spacing={2} onSubmit={handleSubmit(submit)}>
            {trialCode.isError && (
              <Alert severity="error" data-testid="trial-code-error">
                {trialCode.error instanceof MissingTrialCodeError
                  ? PARTICIPANT_MESSAGES.trialCodeLoadFailed
                  : PARTICIPANT_MESSAGES.trialCodeError}
              </Alert>
            )}
            {error && (
              <Alert severity="error" data-testid="add-participant-error">
                {error}
              </Alert>
            )}
            <ParticipantFields
              idPrefix="add-participant"
              codePrefix={trialCode.data ?? (trialCode.isError ? '?' : '…')}
              suffix={textFieldProps(upperCased(register('codeSuffix')), errors.codeSuffix)}
              suffixInvalid={suffixInvalid}
              email={textFieldProps(register('email'), errors.email)}
              gender={textFieldProps(register('gender'), errors.gender)}
              age={textFieldProps(register('age'), errors.age)}
              notes={textFieldProps(register('notes'), errors.notes)}
              notesLength={notes.length}
              showEmail={showEmail}
              showNotes={showNotes}
            />
            <Stack direction="row" spacing={1.5} sx={{ justifyContent: 'flex-end' }}>
              <Button onClick={backToTrial} disabled={add.isPending}>
                Cancel
              </Button>
              <Button
                type="submit"
                variant="contained"
                disabled={add.isPending || suffixInvalid}
                data-testid="add-participant-submit"
              >
                Add Participant
              </Button>
            </Stack>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
