import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';
import { useDefaultProps } from '@mui/material/DefaultPropsProvider';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput from '@mui/material/OutlinedInput';
import { styled } from '@mui/material/styles';

/** The same root as MUI's `TextField` (theme overrides and default props of `MuiTextField` apply). */
const TextFieldRoot = styled(FormControl, { name: 'MuiTextField', slot: 'Root' })({});

export type OutlinedTextFieldProps = {
  id: string;
  label: ReactNode;
  name?: string;
  type?: string;
  autoComplete?: string;
  autoFocus?: boolean;
  error?: boolean;
  required?: boolean;
  disabled?: boolean;
  helperText?: ReactNode;
  fullWidth?: boolean;
  className?: string;
  inputRef?: Ref<HTMLInputElement>;
  onChange?: InputHTMLAttributes<HTMLInputElement>['onChange'];
  onBlur?: InputHTMLAttributes<HTMLInputElement>['onBlur'];
  slotProps?: {
    htmlInput?: InputHTMLAttributes<HTMLInputElement> & Record<`data-${string}`, string>;
  };
};

/**
 * MUI's outlined `TextField` without its `select` mode: the same elements, ids, classes and
 * theme defaults, but it does not load `Select` (and with it Menu, Popover, Modal), which the
 * sign-in pages never use — it keeps their JavaScript small (issue 14, decision 0024).
 */
export const OutlinedTextField = forwardRef<HTMLDivElement, OutlinedTextFieldProps>(
  function OutlinedTextField(inProps, ref) {
    const props = useDefaultProps({
      props: inProps,
      name: 'MuiTextField',
    }) as OutlinedTextFieldProps;
    const {
      id: idOverride,
      label,
      name,
      type,
      autoComplete,
      autoFocus = false,
      error = false,
      required = false,
      disabled = false,
      helperText,
      fullWidth = false,
      className,
      inputRef,
      onChange,
      onBlur,
      slotProps,
    } = props;
    const generatedId = useId();
    const id = idOverride ?? generatedId;
    const helperTextId = helperText ? `${id}-helper-text` : undefined;
    const hasLabel = label != null && label !== '';
    return (
      <TextFieldRoot
        ref={ref}
        className={className ? `MuiTextField-root ${className}` : 'MuiTextField-root'}
        error={error}
        required={required}
        disabled={disabled}
        fullWidth={fullWidth}
        variant="outlined"
        color="primary"
      >
        {hasLabel && (
          <InputLabel htmlFor={id} id={`${id}-label`}>
            {label}
          </InputLabel>
        )}
        <OutlinedInput
          aria-describedby={helperTextId}
          autoComplete={autoComplete}
          autoFocus={autoFocus}
          fullWidth={fullWidth}
          name={name}
          type={type}
          id={id}
          inputRef={inputRef}
          onChange={onChange}
          onBlur={onBlur}
          inputProps={slotProps?.htmlInput}
          label={label}
        />
        {helperText && <FormHelperText id={helperTextId}>{helperText}</FormHelperText>}
      </TextFieldRoot>
    );
  },
);
