import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import { PRODUCT_NAME } from '@trialpulse/shared';

export type LegalDocument = 'privacy' | 'terms';

const DOCUMENTS: Record<LegalDocument, { title: string; paragraphs: string[] }> = {
  privacy: {
    title: 'Privacy Policy',
    paragraphs: [
      `${PRODUCT_NAME} is used by research teams to collect wearable and health-device data from clinical-trial participants who have given their consent.`,
      'We store the account details of research staff (name, username, email, team and role) to sign them in and to record who did what. Participant records are kept anonymised and de-identified: personal health information must not be entered.',
      'Device data is fetched only for participants who authorised their device, is kept for the retention period their research team has set, and is deleted after that period. Access tokens for devices are encrypted at rest and can be revoked at any time.',
      'Every change and every sensitive read is written to an audit log. We do not sell data or share it with anyone outside the research team that collected it.',
      'For questions about your data, or to ask for its correction or deletion, use the Contact Us form.',
    ],
  },
  terms: {
    title: 'Terms and Conditions',
    paragraphs: [
      `${PRODUCT_NAME} is provided to research teams for the conduct of approved clinical trials.`,
      'Accounts are personal: do not share your password or second factor. Access is granted by role, and you may only use the data of the teams and trials you have been given access to.',
      'You are responsible for obtaining participant consent and for entering only anonymised, de-identified participant information.',
      'Exports must be handled under your institution’s data-protection rules. Misuse of the service may lead to the suspension of your account.',
    ],
  },
};

type LegalDialogProps = { document: LegalDocument | null; onClose: () => void };

/** The privacy policy and the terms, shown over the current page from the footer links. */
export function LegalDialog({ document, onClose }: LegalDialogProps) {
  const content = document ? DOCUMENTS[document] : null;
  return (
    <Dialog
      open={content !== null}
      onClose={onClose}
      scroll="paper"
      maxWidth="sm"
      fullWidth
      aria-labelledby="legal-dialog-title"
    >
      {content && (
        <>
          <DialogTitle id="legal-dialog-title">{content.title}</DialogTitle>
          <DialogContent dividers data-testid={`legal-dialog-${document}`}>
            {content.paragraphs.map((paragraph) => (
              <Typography key={paragraph} sx={{ mb: 1.5 }}>
                {paragraph}
              </Typography>
            ))}
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose}>Close</Button>
          </DialogActions>
        </>
      )}
    </Dialog>
  );
}
