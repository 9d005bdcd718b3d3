import type { UseFormRegisterReturn } from 'react-hook-form';

/**
 * Connects a react-hook-form field to an MUI `TextField`: MUI puts `ref` on its wrapper,
 * react-hook-form needs the input itself; the schema's message shows under the field.
 */
export function textFieldProps<T extends string>(
  { ref, ...field }: UseFormRegisterReturn<T>,
  error?: { message?: string },
) {
  return { ...field, inputRef: ref, error: Boolean(error), helperText: error?.message };
}
