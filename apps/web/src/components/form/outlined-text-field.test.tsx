import { render } from '@testing-library/react';
import { ThemeProvider, createTheme } from '@mui/material/styles';
import TextField from '@mui/material/TextField';
import { describe, expect, it } from 'vitest';
import { OutlinedTextField, type OutlinedTextFieldProps } from './outlined-text-field';

// As the app's theme sets it: TextField's default props apply to both.
const theme = createTheme({ components: { MuiTextField: { defaultProps: { fullWidth: true } } } });

function html(element: React.ReactElement) {
  const { container, unmount } = render(<ThemeProvider theme={theme}>{element}</ThemeProvider>);
  const markup = container.innerHTML;
  unmount();
  return markup;
}

const cases: Array<[string, OutlinedTextFieldProps]> = [
  [
    'plain',
    { id: 'login-username', label: 'Username', name: 'username', autoComplete: 'username' },
  ],
  [
    'password with an error and a test id',
    {
      id: 'login-password',
      label: 'Password',
      name: 'password',
      type: 'password',
      autoComplete: 'current-password',
      error: true,
      helperText: 'Password is required',
      slotProps: { htmlInput: { 'data-testid': 'login-password' } },
    },
  ],
  [
    'required and disabled',
    { id: 'x', label: 'X', required: true, disabled: true, className: 'extra' },
  ],
];

describe('OutlinedTextField', () => {
  it.each(cases)('renders the same elements as MUI TextField: %s', (_name, props) => {
    const markup = html(<OutlinedTextField {...props} />);
    expect(markup).toContain('MuiTextField-root');
    expect(markup).toBe(html(<TextField {...props} />));
  });
});
