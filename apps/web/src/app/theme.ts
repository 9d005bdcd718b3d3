import { createTheme } from '@mui/material/styles';

/** Calm clinical palette: deep teal-blue primary, neutral greys, generous white space. */
export const theme = createTheme({
  palette: {
    mode: 'light',
    primary: { main: '#0b5d83', dark: '#083f5a', light: '#3f86a8', contrastText: '#ffffff' },
    secondary: { main: '#2e7d6b', contrastText: '#ffffff' },
    background: { default: '#f4f6f9', paper: '#ffffff' },
    // Darker than MUI's defaults so white text on a filled chip or badge reaches 4.5:1
    // (WCAG 2.1 AA; issue 30): warning #ed6c02 had 3.1:1, info #0288d1 3.9:1.
    warning: { main: '#b54d00', contrastText: '#ffffff' },
    info: { main: '#0277bd', contrastText: '#ffffff' },
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
    // A word longer than its line (an email address, a file name) breaks instead of widening
    // the page past a phone's screen (issue 30); it does not change how wide content asks to be.
    MuiCssBaseline: {
      styleOverrides: {
        body: { overflowWrap: 'break-word' },
        // Motion only for those who have not asked their system for less (WCAG 2.3.3): with
        // "reduce motion" on, spinners, skeleton pulses, button ripples and the fades and
        // slides of menus and dialogs end at once (a spinner stays as a still arc, its
        // progressbar role unchanged). A near-zero duration rather than `none`, so anything
        // that waits for an animation or transition to end still gets its end event.
        '@media (prefers-reduced-motion: reduce)': {
          '*, *::before, *::after': {
            animationDuration: '0.01ms !important',
            animationIterationCount: '1 !important',
            transitionDuration: '0.01ms !important',
            scrollBehavior: 'auto !important',
          },
        },
      },
    },
    MuiAppBar: { defaultProps: { elevation: 0 } },
    MuiButton: { defaultProps: { disableElevation: true } },
    MuiPaper: { styleOverrides: { outlined: { borderColor: '#dde3ea' } } },
    MuiTextField: { defaultProps: { fullWidth: true } },
    // Links are underlined: inside a sentence colour alone does not set them apart (WCAG 1.4.1).
    MuiLink: { defaultProps: { underline: 'always' } },
  },
});
