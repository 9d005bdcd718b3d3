import Link from '@mui/material/Link';

const URL_PATTERN = /(https?:\/\/[^\s<>"']+)/g;

/** Plain text with its web addresses made clickable; nothing is rendered as HTML. */
export function LinkifiedText({ text }: { text: string }) {
  const parts = text.split(URL_PATTERN);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <Link key={index} href={part} rel="noreferrer" sx={{ wordBreak: 'break-all' }}>
            {part}
          </Link>
        ) : (
          <span key={index}>{part}</span>
        ),
      )}
    </>
  );
}
