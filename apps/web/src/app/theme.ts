import { createTheme } from '@mui/material/styles';

/** Calm clinical palette: deep teal-blue primary, neutral greys, generous white space. */
export const theme = createTheme({
  palette: {
    mode: 'light',
    primary: { main: '#0b5d83', dark: '#083f5a', light: '#3f86a8', contrastText: '#ffffff' },
    secondary: { main: '#2e7d6b', contrastText: '#ffffff' },
    background: { default: '#f4f6f9', paper: '#ffffff' },
    text: { primary: '#1c2833', secondary: '#52606d' },
    divider: '#dde3ea',
  },
  shape: { borderRadius: 8 },
  typography: {
    fontFamily:
      '"Inter", "Segoe UI", system-ui, -apple-system, "Helvetica Neue", Roboto, Arial, sans-serif',
    h1: { fontSize: '2rem', fontWeight: 600 },
    h2: { fontSize: '1.6rem', fontWeight: 600 },
    h3: { fontSize: '1.35rem', fontWeight: 600 },
    h4: { fontSize: '1.2rem', fontWeight: 600 },
    button: { textTransform: 'none', fontWeight: 600 },
  },
  components: {
    MuiAppBar: { defaultProps: { elevation: 0 } },
    MuiButton: { defaultProps: { disableElevation: true } },
    MuiPaper: { styleOverrides: { outlined: { borderColor: '#dde3ea' } } },
    MuiTextField: { defaultProps: { fullWidth: true } },
    MuiLink: { defaultProps: { underline: 'hover' } },
  },
});
